import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { localAuthFiles } from '@app/auth';
import { ensurePrincipalPasswords } from './principal-passwords';
import { managed, ManagedProcess, startDetached } from './processes';
import { StackConfig } from './stack.config';
import { requireCommand } from './toolchain';

/**
 * The registry's gate: nginx (Debian's) in front of a registry that listens nowhere else (its own
 * network namespace, reached through a socket file only the stack's user may open; see registry.ts).
 * Every request needs a principal's Basic credential; `admin` (provisioning, the operator) may do
 * anything, every other principal may only read: GET and HEAD, and the two POSTs that only ask
 * (is this schema registered under this subject, would it be compatible).
 */
export function registryGateProcess(config: StackConfig): ManagedProcess {
  return managed(config.runDir, config.logsDir, 'registry-gate');
}

/** The socket file the registry's HTTP listener is bridged to, inside the stack's run folder. */
export function registrySocket(config: StackConfig): string {
  return path.join(config.runDir, 'registry-http.sock');
}

/**
 * Every principal's registry password, made once (one file per principal as well, for
 * SCHEMA_REGISTRY_PASSWORD_FILE), and the gate's password file: salted SHA-1 hashes, which nginx
 * checks itself; the passwords are 144 random bits, so no hash needs to be slow.
 */
export function ensureRegistryPasswords(stackDir: string): Record<string, string> {
  const files = localAuthFiles(stackDir);
  const passwords = ensurePrincipalPasswords(files.registryCredentials, files.registryPasswordFile);
  const lines = Object.entries(passwords).map(([principal, password]) => `${principal}:${saltedSha1(password)}`);
  fs.writeFileSync(files.registryHtpasswd, `${lines.join('\n')}\n`, { mode: 0o644 });
  return passwords;
}

function saltedSha1(password: string): string {
  const salt = randomBytes(8);
  const digest = createHash('sha1').update(password).update(salt).digest();
  return `{SSHA}${Buffer.concat([digest, salt]).toString('base64')}`;
}

/** A subject or version as the platform names them: no encoded byte, no dot segment, nothing to normalize. */
const name = '[A-Za-z0-9][A-Za-z0-9._-]*';
const query = '(\\?[A-Za-z0-9=&._-]*)?';

/**
 * The gate's rules, matched on "user:method:raw URI" — the raw URI is what reaches the registry, so
 * no decoding or normalization can differ between the check and the request (a user name cannot
 * hold a colon). A request without a credential passes this map only to be refused by auth_basic
 * with 401; a known user's password is checked by auth_basic after the map, whatever it allowed.
 */
export function gateRules(): string[] {
  // Any other user the password file knows reads: the platform's principals and every partner added
  // later (npm run partner:add), without a new rule; an unknown user is refused by auth_basic.
  const who = '[A-Za-z0-9._-]+';
  return [
    `"~^:" 1;`,
    `"~^admin:" 1;`,
    `"~^${who}:(GET|HEAD):" 1;`,
    `"~^${who}:POST:/apis/ccompat/v7/subjects/${name}${query}$" 1;`,
    `"~^${who}:POST:/apis/ccompat/v7/compatibility/subjects/${name}/versions/${name}${query}$" 1;`,
  ];
}

export function gateConfig(config: StackConfig): string {
  const temp = path.join(config.runDir, 'registry-gate');
  const log = (file: string) => path.join(config.logsDir, file);
  return `# Written by tools/stack/registry-gate.ts at every start; edits are lost.
worker_processes 1;
pid ${path.join(config.runDir, 'registry-gate.nginx.pid')};
error_log ${log('registry-gate.log')} warn;
${process.getuid?.() === 0 ? 'user root;' : ''}
events { worker_connections 512; }
http {
  access_log ${log('registry-gate.access.log')};
  client_body_temp_path ${temp}/body;
  proxy_temp_path ${temp}/proxy;
  fastcgi_temp_path ${temp}/fastcgi;
  uwsgi_temp_path ${temp}/uwsgi;
  scgi_temp_path ${temp}/scgi;
  client_max_body_size 4m;
  server_tokens off;

  map "$remote_user:$request_method:$request_uri" $registry_allowed {
    default 0;
    ${gateRules().join('\n    ')}
  }

  upstream registry {
    server unix:${registrySocket(config)};
    keepalive 16;
  }

  server {
    listen ${config.registry.host}:${config.registry.port};
    auth_basic "schema registry";
    auth_basic_user_file ${localAuthFiles(config.stackDir).registryHtpasswd};
    if ($registry_allowed = 0) { return 403; }
    location / {
      proxy_pass http://registry;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_set_header Authorization "";
    }
  }
}
`;
}

export function startGate(config: StackConfig): number {
  const nginx = requireCommand('nginx', 'nginx-light');
  fs.mkdirSync(path.join(config.runDir, 'registry-gate'), { recursive: true });
  const configFile = path.join(config.runDir, 'registry-gate.conf');
  fs.writeFileSync(configFile, gateConfig(config), { mode: 0o600 });
  return startDetached(registryGateProcess(config), nginx, ['-e', 'stderr', '-p', config.runDir, '-c', configFile, '-g', 'daemon off;']);
}
