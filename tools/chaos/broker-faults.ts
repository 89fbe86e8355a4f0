import { topicFor } from '@app/events';
import { isolateNode, reconnectNode, routesOf } from '../stack/broker-network';
import { KafkaNode, kafkaNodes, StackConfig } from '../stack/stack.config';
import { crashNode, restartNode, signalNode } from './campaign-stack';
import { busiestPartition, partitionsSeenBy, quorumLeaderSeenBy, refusesConnections } from './cluster-view';
import type { Random } from './random';
import type { Strike } from './strike';

/** The faults only a cluster can have. */
export type BrokerFaultKind = 'kill-leader' | 'pause-broker' | 'kill-controller' | 'partition-broker' | 'two-brokers-down';

export const brokerFaultKinds: BrokerFaultKind[] = ['kill-leader', 'pause-broker', 'kill-controller', 'partition-broker', 'two-brokers-down'];

/** The cluster a fault strikes, and the run's random choices. */
interface Cluster {
  stack: StackConfig;
  nodes: KafkaNode[];
  random: Random;
  /** A random duration between `min` and `max` seconds, in milliseconds. */
  lasting: (min: number, max: number) => number;
  others: (node: KafkaNode) => KafkaNode[];
}

export async function strikeBroker(kind: BrokerFaultKind, stack: StackConfig, random: Random): Promise<Strike | undefined> {
  const nodes = kafkaNodes(stack);
  const cluster: Cluster = {
    stack,
    nodes,
    random,
    lasting: (min, max) => random.between(min, max) * 1000,
    others: (node) => nodes.filter((n) => n.id !== node.id),
  };
  return strikes[kind](cluster);
}

async function killLeader({ stack, nodes, random, lasting, others }: Cluster): Promise<Strike | undefined> {
  // The leader of the partition of task-requested that has taken most writes: every task passes there.
  const asked = random.pick(nodes);
  const topic = topicFor('TaskRequested');
  const partition = await busiestPartition(stack, asked, topic);
  const before = (await partitionsSeenBy(stack, asked)).find((p) => p.topic === topic && p.partition === partition);
  const leader = nodes.find((n) => n.id === before?.leader);
  if (!leader) return undefined;
  await crashNode(stack, leader);
  return {
    target: leader.name,
    detail: `leader of ${topic}[${partition}]`,
    // The controller fences a dead broker after its 9 s session timeout, then elects: a fault
    // shorter than ~15 s could heal before anyone could see it.
    forMs: lasting(18, 30),
    heal: () => restartNode(stack, leader),
    effect: () =>
      askAnyOf(others(leader), async (witness) => {
        const now = (await partitionsSeenBy(stack, witness)).find((p) => p.topic === topic && p.partition === partition);
        return now && now.leader >= 0 && now.leader !== leader.id
          ? `node ${witness.id}: ${topic}[${partition}] led by ${now.leader} instead of ${leader.id}, in sync ${now.isr.join(',')}`
          : undefined;
      }),
  };
}

async function pauseBroker({ stack, nodes, random, lasting, others }: Cluster): Promise<Strike | undefined> {
  // Stopped past its session timeout (9 s): the controller fences it and its followers' places in sync go.
  const node = random.pick(nodes);
  signalNode(stack, node, 'SIGSTOP');
  return {
    target: node.name,
    detail: 'SIGSTOP',
    forMs: lasting(14, 25),
    heal: async () => void signalNode(stack, node, 'SIGCONT'),
    effect: () => askAnyOf(others(node), (witness) => leftInSync(stack, node, witness)),
  };
}

async function killController({ stack, nodes, random, lasting, others }: Cluster): Promise<Strike | undefined> {
  const asked = random.pick(nodes);
  const controllerId = await quorumLeaderSeenBy(stack, asked);
  const controller = nodes.find((n) => n.id === controllerId);
  if (!controller) return undefined;
  await crashNode(stack, controller);
  return {
    target: controller.name,
    detail: `active controller (DescribeQuorum through node ${asked.id})`,
    forMs: lasting(10, 18),
    heal: () => restartNode(stack, controller),
    effect: () =>
      askAnyOf(others(controller), async (witness) => {
        const leader = await quorumLeaderSeenBy(stack, witness);
        return leader >= 0 && leader !== controller.id ? `node ${witness.id}: the quorum's leader is ${leader}, no longer ${controller.id}` : undefined;
      }),
  };
}

async function partitionBroker({ stack, nodes, random, lasting, others }: Cluster): Promise<Strike | undefined> {
  // Cut off from both peers while every client still reaches it.
  const node = random.pick(nodes);
  isolateNode(stack, node);
  const cut = routesOf(node).filter((route) => route.startsWith('blackhole')).length;
  return {
    target: node.name,
    detail: `isolated from ${others(node)
      .map((n) => n.id)
      .join(' and ')} (${cut} blackhole routes in its namespace)`,
    forMs: lasting(15, 30),
    heal: async () => reconnectNode(stack, node),
    effect: () => askAnyOf(others(node), (witness) => leftInSync(stack, node, witness)),
  };
}

async function twoBrokersDown({ stack, nodes, random, lasting, others }: Cluster): Promise<Strike | undefined> {
  // Writes need two in-sync copies and the quorum two voters: both wait until one comes back.
  const first = random.pick(nodes);
  const down = [first, random.pick(others(first))];
  await Promise.all(down.map((node) => crashNode(stack, node)));
  return {
    target: down.map((n) => n.name).join('+'),
    detail: 'kill -9 of two nodes at once',
    forMs: lasting(3, 8),
    heal: async () => void (await Promise.all(down.map((node) => restartNode(stack, node)))),
    effect: async () =>
      (await Promise.all(down.map(refusesConnections))).every(Boolean) ? `nodes ${down.map((n) => n.id).join(' and ')} refuse connections` : undefined,
  };
}

const strikes: Record<BrokerFaultKind, (cluster: Cluster) => Promise<Strike | undefined>> = {
  'kill-leader': killLeader,
  'pause-broker': pauseBroker,
  'kill-controller': killController,
  'partition-broker': partitionBroker,
  'two-brokers-down': twoBrokersDown,
};

/**
 * What the first of `witnesses` that answers says: one still restarting after an earlier fault (it
 * refuses connections for a while) must not hide what the others see.
 */
async function askAnyOf(witnesses: KafkaNode[], ask: (witness: KafkaNode) => Promise<string | undefined>): Promise<string | undefined> {
  let lastError: unknown;
  for (const witness of witnesses) {
    try {
      return await ask(witness);
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

/** Whether `witness` reports `node` out of the in-sync replicas of a partition it holds a copy of. */
async function leftInSync(stack: StackConfig, node: KafkaNode, witness: KafkaNode): Promise<string | undefined> {
  const partitions = (await partitionsSeenBy(stack, witness)).filter((p) => p.replicas.includes(node.id));
  const out = partitions.filter((p) => !p.isr.includes(node.id));
  const leads = partitions.filter((p) => p.leader === node.id).length;
  return out.length > 0
    ? `node ${witness.id}: ${node.id} out of the in-sync replicas of ${out.length} of ${partitions.length} partitions, leads ${leads}`
    : undefined;
}
