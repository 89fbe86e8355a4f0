/**
 * What keeps a running service from doing part of its work without making it unfit to serve: a
 * component reports it here while it lasts, and /health lists it under `progress` (still 200: a
 * restart would not help, a person might).
 */
export class Degradations {
  private readonly current = new Map<string, string>();

  report(what: string, problem: string): void {
    this.current.set(what, problem);
  }

  clear(what: string): void {
    this.current.delete(what);
  }

  list(): string[] {
    return [...this.current.entries()].map(([what, problem]) => `${what}: ${problem}`);
  }
}

/** The process's one list (a service is one process). */
export const degradations = new Degradations();
