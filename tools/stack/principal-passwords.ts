import { randomBytes } from 'node:crypto';
import { kafkaPrincipals } from '@app/catalogue';
import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Every principal's password for one system, made once and kept together in `allFile` (0600), and
 * one file per principal beside it (a client is given its own alone; readable by others inside the
 * 0700 folder, since a container's user must read the one it is given).
 */
export function ensurePrincipalPasswords(allFile: string, oneFile: (principal: string) => string): Record<string, string> {
  fs.mkdirSync(path.dirname(allFile), { recursive: true, mode: 0o700 });
  if (!fs.existsSync(allFile)) {
    const made = Object.fromEntries(kafkaPrincipals.map((p) => [p, randomBytes(18).toString('base64url')]));
    fs.writeFileSync(allFile, JSON.stringify(made, null, 2), { mode: 0o600 });
  }
  const passwords = JSON.parse(fs.readFileSync(allFile, 'utf8')) as Record<string, string>;
  for (const [principal, password] of Object.entries(passwords)) fs.writeFileSync(oneFile(principal), password, { mode: 0o644 });
  return passwords;
}
