import * as fs from 'node:fs';
import * as path from 'node:path';
import { defaults } from '@app/config';
import { loadSchema, subjectFor, topicFor } from '@app/events';
import { basicAuthorization, localRegistryCredentials } from '@app/kafka';
import { registryProcess } from '../../tools/stack/registry';
import { runningPid } from '../../tools/stack/processes';
import { loadStackConfig } from '../../tools/stack/stack.config';
import { Platform } from '../support/platform';

const registry = new URL(defaults.schemaRegistryUrl).origin;
const ccompat = defaults.schemaRegistryUrl;
const native = `${registry}/apis/registry/v3`;
type Credential = { username: string; password: string } | undefined;

function send(method: string, url: string, credential: Credential, body?: unknown): Promise<Response> {
  const headers = { 'content-type': 'application/json', ...basicAuthorization(credential) };
  return fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

/**
 * What an attacker would change, asked by name (the shared registry's listings are paged): our
 * subjects' versions and rules, the subject and artifact an attacker would make, the global rules
 * and mode.
 */
async function registryState(prefix: string) {
  const admin = localRegistryCredentials('admin');
  const read = async (url: string) => {
    const response = await send('GET', url, admin);
    return { status: response.status, body: await response.text() };
  };
  const ours = ['TaskRequested', 'QuotaDebited'].map((type) => subjectFor(topicFor(type as 'TaskRequested', prefix)));
  return {
    ...Object.fromEntries(
      await Promise.all(ours.map(async (s) => [s, { versions: await read(`${ccompat}/subjects/${s}/versions`), rule: await read(`${ccompat}/config/${s}`) }])),
    ),
    attackerSubject: (await read(`${ccompat}/subjects/${prefix}attacker-value/versions`)).status,
    attackerArtifact: (await read(`${native}/groups/default/artifacts/${prefix}attacker`)).status,
    globalRule: await read(`${ccompat}/config`),
    mode: await read(`${ccompat}/mode`),
    nativeRules: await read(`${native}/admin/rules`),
  };
}

/** A version the rule (BACKWARD) accepts: the request with one more optional field. */
function evolvedTaskRequested(): string {
  const schema = loadSchema('TaskRequested') as { fields: unknown[] };
  return JSON.stringify({ ...schema, fields: [...schema.fields, { name: 'attackerNote', type: ['null', 'string'], default: null }] });
}

describe('the schema registry', () => {
  const platform = new Platform();
  const prefix = platform.env.topicPrefix;
  const requested = subjectFor(topicFor('TaskRequested', prefix));
  const debited = subjectFor(topicFor('QuotaDebited', prefix));
  const attacks: Array<[string, string, unknown?]> = [
    ['POST', `${ccompat}/subjects/${prefix}attacker-value/versions`, { schema: '"string"' }],
    ['POST', `${ccompat}/subjects/${requested}/versions`, { schema: evolvedTaskRequested() }],
    ['DELETE', `${ccompat}/subjects/${debited}`],
    ['DELETE', `${ccompat}/subjects/${debited}?permanent=true`],
    ['DELETE', `${ccompat}/subjects/${debited}/versions/1`],
    ['PUT', `${ccompat}/config/${requested}`, { compatibility: 'NONE' }],
    ['PUT', `${ccompat}/config`, { compatibility: 'NONE' }],
    ['DELETE', `${ccompat}/config/${requested}`],
    ['PUT', `${ccompat}/mode`, { mode: 'READONLY' }],
    // The same writes spelled to slip past a rule on paths: an encoded slash, a dot segment, a matrix parameter.
    ['POST', `${ccompat}/subjects/${requested}%2Fversions`, { schema: evolvedTaskRequested() }],
    ['POST', `${ccompat}/subjects/x/../${requested}/versions`, { schema: evolvedTaskRequested() }],
    ['POST', `${ccompat}/subjects/${requested};v=1/versions`, { schema: evolvedTaskRequested() }],
    ['PUT', `${ccompat}/subjects/../config`, { compatibility: 'NONE' }],
    // The native API behind the same port.
    [
      'POST',
      `${native}/groups/default/artifacts`,
      { artifactId: `${prefix}attacker`, artifactType: 'AVRO', firstVersion: { content: { content: '"string"', contentType: 'application/json' } } },
    ],
    ['DELETE', `${native}/groups/default/artifacts/${requested}`],
    ['PUT', `${native}/admin/rules/COMPATIBILITY`, { ruleType: 'COMPATIBILITY', config: 'NONE' }],
    ['POST', `${native}/admin/rules`, { ruleType: 'VALIDITY', config: 'NONE' }],
    ['DELETE', `${native}/admin/rules`],
  ];
  let before: Awaited<ReturnType<typeof registryState>>;

  beforeAll(async () => {
    // Given a world whose topics and schemas provisioning made (as admin)
    await platform.env.provision();
    before = await registryState(prefix);
    expect(before).toMatchObject({
      [requested]: { versions: { status: 200 } },
      [debited]: { versions: { status: 200 } },
      attackerSubject: 404,
      attackerArtifact: 404,
    });
  });

  afterAll(() => platform.stop());

  it('answers no request without a credential, not even a read', async () => {
    for (const url of [`${ccompat}/subjects`, `${ccompat}/schemas/ids/1`, `${native}/search/artifacts`]) {
      expect({ url, status: (await send('GET', url, undefined)).status }).toEqual({ url, status: 401 });
    }
  });

  it.each([
    ['no credential', () => undefined],
    ['the external principal', () => localRegistryCredentials('external')],
    ['a service principal', () => localRegistryCredentials('tasks')],
    ["admin's name with a wrong password", () => ({ username: 'admin', password: 'guessed' })],
  ])('refuses every write, delete and rule change with %s, and nothing changes', async (_who, credential) => {
    // When each is tried
    for (const [method, url, body] of attacks) {
      const answer = (await send(method, url, credential(), body)).status;
      // Then each is refused
      expect({ method, url, answer: [401, 403].includes(answer) ? 'refused' : answer }).toEqual({ method, url, answer: 'refused' });
    }
    // And the registry is as it was
    expect(await registryState(prefix)).toEqual(before);
  });

  it('lets a reader look its schema up, and nobody reach the registry but through its gate', async () => {
    const external = localRegistryCredentials('external');
    const lookup = await send('POST', `${ccompat}/subjects/${requested}`, external, { schema: JSON.stringify(loadSchema('TaskRequested')) });
    expect(lookup.status).toBe(200);
    expect((await send('GET', `${ccompat}/subjects/${requested}/versions/latest`, external)).status).toBe(200);
    // The registry process lives in a network namespace other than ours: no port of it is on our interfaces.
    const pid = runningPid(registryProcess(loadStackConfig()));
    expect(pid).toBeDefined();
    expect(fs.readlinkSync(path.join('/proc', String(pid), 'ns', 'net'))).not.toBe(fs.readlinkSync('/proc/self/ns/net'));
  });

  it("takes a new schema version from provisioning's credential", async () => {
    const answer = await send('POST', `${ccompat}/subjects/${requested}/versions`, localRegistryCredentials('admin'), { schema: evolvedTaskRequested() });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ id: expect.any(Number) });
  });

  it('starts every service after the attacks, and a task completes', async () => {
    // When the four services start on this world
    await platform.start();
    // Then a task goes through to its outcome
    const submitted = await platform.submit('registry-lock-user', { text: 'after the attack' });
    expect(submitted.status).toBe(202);
    expect(await platform.settled(submitted.body.taskId as string)).toMatchObject({ state: 'SUCCESS' });
  });
});
