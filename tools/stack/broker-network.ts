import { execFileSync } from 'node:child_process';
import { StackError } from './processes';
import { brokerBridge, brokerSubnet, KafkaNode, kafkaNodes, StackConfig } from './stack.config';
import { requireCommand } from './toolchain';

/**
 * A cluster's network: each node in a network namespace of its own, joined to the host by a veth
 * pair on one bridge, with an address of its own. Between loopback addresses every connection leaves
 * from 127.0.0.1, so no rule could tell a broker's traffic from a client's; here each node's packets
 * carry its own address, and a route inside a node's namespace can cut it off from one peer while
 * the host (the clients) still reaches it. Needs root (as the stack runs here); everything stays on
 * this machine, between the stack's own addresses.
 */
export function ensureBrokerNetwork(config: StackConfig): void {
  const bridge = brokerBridge(config);
  const subnet = brokerSubnet(config);
  if (!linkExists(bridge)) {
    ip('link', 'add', bridge, 'type', 'bridge');
    ip('addr', 'add', `${subnet}.1/24`, 'dev', bridge);
  }
  ip('link', 'set', bridge, 'up');
  for (const node of kafkaNodes(config)) {
    const namespace = node.namespace!;
    if (namespaces().includes(namespace)) continue;
    const outside = `${namespace}h`;
    ip('netns', 'add', namespace);
    if (linkExists(outside)) ip('link', 'del', outside);
    ip('link', 'add', outside, 'type', 'veth', 'peer', 'name', `${namespace}n`);
    ip('link', 'set', `${namespace}n`, 'netns', namespace);
    ip('-n', namespace, 'link', 'set', `${namespace}n`, 'name', 'eth0');
    ip('-n', namespace, 'addr', 'add', `${node.host}/24`, 'dev', 'eth0');
    ip('-n', namespace, 'link', 'set', 'eth0', 'up');
    ip('-n', namespace, 'link', 'set', 'lo', 'up');
    ip('link', 'set', outside, 'master', bridge);
    ip('link', 'set', outside, 'up');
  }
}

/** Removes the namespaces and the bridge (their veth pairs go with them); the nodes must be stopped. */
export function removeBrokerNetwork(config: StackConfig): boolean {
  const bridge = brokerBridge(config);
  let removed = false;
  for (const node of kafkaNodes(config)) {
    if (node.namespace && namespaces().includes(node.namespace)) {
      ip('netns', 'del', node.namespace);
      removed = true;
    }
  }
  if (linkExists(bridge)) {
    ip('link', 'del', bridge);
    removed = true;
  }
  return removed;
}

/**
 * Cuts `isolated` off from the other nodes, both ways (a blackhole route for each peer's address in
 * each namespace), while the host still reaches every node: the partition a broker meets when the
 * link between racks fails but clients sit on both sides.
 */
export function isolateNode(config: StackConfig, isolated: KafkaNode): void {
  for (const [from, to] of crossings(config, isolated)) ip('-n', from.namespace!, 'route', 'replace', 'blackhole', `${to.host}/32`);
}

export function reconnectNode(config: StackConfig, isolated: KafkaNode): void {
  for (const [from, to] of crossings(config, isolated)) {
    try {
      ip('-n', from.namespace!, 'route', 'del', 'blackhole', `${to.host}/32`);
    } catch {
      // not cut (already healed)
    }
  }
}

/** The routes of a namespace, as `ip route` prints them: what the history keeps as a partition's proof of being in place. */
export function routesOf(node: KafkaNode): string[] {
  return ip('-n', node.namespace!, 'route', 'show').trim().split('\n');
}

function crossings(config: StackConfig, isolated: KafkaNode): Array<[KafkaNode, KafkaNode]> {
  const others = kafkaNodes(config).filter((n) => n.id !== isolated.id);
  return others.flatMap((other) => [[isolated, other] as [KafkaNode, KafkaNode], [other, isolated] as [KafkaNode, KafkaNode]]);
}

/** The command that runs `command` inside a node's namespace (the JVM is started through it). */
export function inNamespace(node: KafkaNode, command: string, args: string[]): [string, string[]] {
  if (!node.namespace) return [command, args];
  return [requireCommand('ip', 'iproute2'), ['netns', 'exec', node.namespace, command, ...args]];
}

function namespaces(): string[] {
  return ip('netns', 'list')
    .split('\n')
    .map((line) => line.split(' ')[0])
    .filter(Boolean);
}

function linkExists(name: string): boolean {
  try {
    ip('link', 'show', name);
    return true;
  } catch {
    return false;
  }
}

function ip(...args: string[]): string {
  try {
    return execFileSync(requireCommand('ip', 'iproute2'), args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new StackError('kafka', `ip ${args.join(' ')} failed${stderr ? `: ${stderr}` : ''} (a cluster's network needs root and iproute2)`);
  }
}
