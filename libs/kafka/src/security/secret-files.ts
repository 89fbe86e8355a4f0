import * as fs from 'node:fs';

/** A password from a mounted secret file (Docker's and Kubernetes' way), without its trailing newline. */
export function passwordFromFile(file: string | undefined, variable: string): string | undefined {
  if (!file) return undefined;
  try {
    return fs.readFileSync(file, 'utf8').trim() || undefined;
  } catch (error) {
    throw new Error(`${variable} ${file} cannot be read: ${(error as Error).message}`, { cause: error });
  }
}

/** One principal's password from the local stack's file of them all; undefined without a local stack. */
export function localPassword(file: string, principal: string): { username: string; password: string } | undefined {
  if (!fs.existsSync(file)) return undefined;
  const passwords = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>;
  return passwords[principal] ? { username: principal, password: passwords[principal] } : undefined;
}
