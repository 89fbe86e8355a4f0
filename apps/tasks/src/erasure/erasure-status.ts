import type { Knex } from 'knex';

/** The services that keep something of a user besides tasks, each answering an erasure with UserDataErased. */
export const answeringServices = ['quota', 'generation', 'notification'] as const;

export interface ErasureStatus {
  erasureId: string;
  userId: string;
  requestedBy: string;
  requestedAt: string;
  /** ERASING until every service has answered, then ERASED. */
  status: 'ERASING' | 'ERASED';
  /** When each service erased its copies (tasks: in the request's own transaction), null while it has not. */
  services: Record<string, { erasedAt: string | null; erased: number | null }>;
}

interface ErasureRow {
  erasure_id: string;
  user_id: string;
  requested_by: string;
  requested_at: Date;
}

export async function erasureStatus(db: Knex, erasureId: string, tasksErased: number | null = null): Promise<ErasureStatus | undefined> {
  const erasure: ErasureRow | undefined = await db('user_erasures').where({ erasure_id: erasureId }).first();
  return erasure && statusOf(db, erasure, tasksErased);
}

/** The user's latest erasure, if any. */
export async function latestErasureOf(db: Knex, userId: string): Promise<ErasureStatus | undefined> {
  const erasure: ErasureRow | undefined = await db('user_erasures').where({ user_id: userId }).orderBy('requested_at', 'desc').first();
  return erasure && statusOf(db, erasure, null);
}

async function statusOf(db: Knex, erasure: ErasureRow, tasksErased: number | null): Promise<ErasureStatus> {
  const answers: Array<{ service: string; erased: number; answered_at: Date }> = await db('user_erasure_answers').where({ erasure_id: erasure.erasure_id });
  const requestedAt = new Date(erasure.requested_at).toISOString();
  const services: ErasureStatus['services'] = { tasks: { erasedAt: requestedAt, erased: tasksErased } };
  for (const service of answeringServices) {
    const answer = answers.find((a) => a.service === service);
    services[service] = { erasedAt: answer ? new Date(answer.answered_at).toISOString() : null, erased: answer?.erased ?? null };
  }
  const done = answeringServices.every((service) => answers.some((a) => a.service === service));
  return {
    erasureId: erasure.erasure_id,
    userId: erasure.user_id,
    requestedBy: erasure.requested_by,
    requestedAt,
    status: done ? 'ERASED' : 'ERASING',
    services,
  };
}
