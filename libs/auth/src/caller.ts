export const roles = ['admin', 'viewer'] as const;
export type Role = (typeof roles)[number];

/** Who is calling, as their verified token says. */
export interface Caller {
  userId: string;
  roles: ReadonlySet<Role>;
}

export const isAdmin = (caller: Caller) => caller.roles.has('admin');
export const isViewer = (caller: Caller) => caller.roles.has('viewer') && !isAdmin(caller);
/** The operator console's people: an admin, who acts, or a viewer, who looks. */
export const isOperator = (caller: Caller) => caller.roles.has('admin') || caller.roles.has('viewer');

/** Reads are open to the user themself, an admin, and a viewer (who sees them masked). */
export const mayRead = (caller: Caller, userId: string) => caller.userId === userId || isAdmin(caller) || caller.roles.has('viewer');

/** Changes are open to the user themself and an admin; never to a viewer acting on others. */
export const mayActFor = (caller: Caller, userId: string) => (caller.userId === userId && !isViewer(caller)) || isAdmin(caller);

/** What a viewer sees in place of a user's own content (a task's input, a webhook URL). */
export const masked = '***';
