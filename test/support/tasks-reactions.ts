import { randomBytes } from 'node:crypto';
import { masterKeysOf, PersonalData } from '@app/personal-data';
import { TasksHandlers } from '../../apps/tasks/src/tasks.handlers';
import { loadTasksConfig } from '../../apps/tasks/src/tasks.config';
import { eventOf } from './reaction-world';

/** The tasks service's handlers as it builds them, with its default settings and a master key of their own. */
export function tasksHandlers() {
  const masterKeys = masterKeysOf(JSON.stringify({ current: 'mk-1', keys: { 'mk-1': randomBytes(32).toString('base64') } }));
  return new TasksHandlers(loadTasksConfig({}), new PersonalData(masterKeys), {} as never, { topicPrefix: '' } as never, {} as never).handlers();
}

/** An outside system's TaskRequested. */
export const requested = (userId: string, input = '{"topic":"tides"}', idempotencyKey: string | null = null, taskId?: string) =>
  eventOf('TaskRequested', { idempotencyKey, reportType: 'summary', input }, { userId, taskId, producer: 'external' });
