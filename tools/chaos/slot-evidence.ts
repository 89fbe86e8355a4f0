import { createKnex } from '@app/database';
import { terminalStates } from '@app/task-state';
import { databaseUrlFor } from '../stack/postgres';
import type { StackConfig } from '../stack/stack.config';
import type { Evidence } from './checked-evidence';

/** A namespace as namespaceOf (@app/catalogue) reads it: a partner's name, then a colon. */
const namespace = '^([a-z][a-z0-9-]{1,30}):';

/**
 * Each user's and namespace's open-task count in tasks' database beside the unfinished tasks it
 * holds (those accepted: a refused request takes no slot), read in one statement; holders with
 * neither left out. `namespaces` false leaves the namespaces out altogether.
 */
export async function openTaskSlots(stack: StackConfig, namespaces: boolean): Promise<NonNullable<Evidence['slots']>> {
  const db = createKnex(databaseUrlFor(stack, 'taskplatform_tasks'), 1, { quiet: true });
  try {
    const { rows } = await db.raw<{ rows: NonNullable<Evidence['slots']> }>(
      `with unfinished as (
         select user_id, count(*)::int as n from tasks
         where state <> all(?) and (facts->>'requested')::boolean group by user_id)
       select 'user' as kind, coalesce(c.user_id, u.user_id) as holder, coalesce(c.open_tasks, 0) as counted, coalesce(u.n, 0) as unfinished
       from user_open_tasks c full join unfinished u on u.user_id = c.user_id
       where coalesce(c.open_tasks, 0) > 0 or coalesce(u.n, 0) > 0
       union all
       select 'namespace', coalesce(p.partner, n.partner), coalesce(p.open_tasks, 0), coalesce(n.n, 0)
       from partner_open_tasks p full join (
         select substring(user_id from ?) as partner, sum(n)::int as n from unfinished where user_id ~ ? group by 1) n on n.partner = p.partner
       where ? and (coalesce(p.open_tasks, 0) > 0 or coalesce(n.n, 0) > 0)`,
      [[...terminalStates], namespace, namespace, namespaces],
    );
    return rows;
  } finally {
    await db.destroy();
  }
}
