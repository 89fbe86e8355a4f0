import { HttpStatus } from '@nestjs/common';
import type { Knex } from 'knex';
import { namespaceOf } from '@app/catalogue';
import { ProblemWithHeaders } from '@app/service';
import { LimitTable, openTaskSlotTaken, takeToken } from '../submit/user-limits';

/** What all the users of one namespace may ask of tasks together. */
export interface PartnerLimits {
  /** Unfinished tasks at once, across its users. */
  maxOpenTasks: number;
  /** Requests a second across its users, and the burst above it. */
  rateLimit: number;
  rateBurst: number;
}

export const partnerBuckets: LimitTable = { table: 'partner_rate_buckets', holder: 'partner' };
export const partnerSlots: LimitTable = { table: 'partner_open_tasks', holder: 'partner' };

interface LimitsRow {
  max_open_tasks: number | null;
  rate_limit: number | null;
  rate_burst: number | null;
}

/** A namespace's limits, its defaults filled in for what an admin left unset. */
export async function limitsOf(db: Knex | Knex.Transaction, partner: string, defaults: PartnerLimits): Promise<PartnerLimits> {
  const row: LimitsRow | undefined = await db('partner_limits').where({ partner }).first();
  return {
    maxOpenTasks: row?.max_open_tasks ?? defaults.maxOpenTasks,
    rateLimit: row?.rate_limit ?? defaults.rateLimit,
    rateBurst: row?.rate_burst ?? defaults.rateBurst,
  };
}

/** A namespace's limits and its unfinished tasks now. */
export async function limitsWithUse(db: Knex, partner: string, defaults: PartnerLimits): Promise<PartnerLimits & { openTasks: number }> {
  const open = await db('partner_open_tasks').where({ partner }).first('open_tasks');
  return { ...(await limitsOf(db, partner, defaults)), openTasks: open?.open_tasks ?? 0 };
}

/** Sets a namespace's limits (those given; `null` gives one back to the default). */
export async function setLimits(db: Knex, partner: string, settings: { [K in keyof PartnerLimits]?: number | null }): Promise<void> {
  const columns = {
    ...(settings.maxOpenTasks !== undefined && { max_open_tasks: settings.maxOpenTasks }),
    ...(settings.rateLimit !== undefined && { rate_limit: settings.rateLimit }),
    ...(settings.rateBurst !== undefined && { rate_burst: settings.rateBurst }),
  };
  await db('partner_limits')
    .insert({ partner, ...columns })
    .onConflict('partner')
    .merge({ ...columns, updated_at: db.fn.now() });
}

/** Per namespace, the open-task slots `perUser` gives back (users of no namespace count for none). */
export function byNamespace(perUser: ReadonlyMap<string, number>): Map<string, number> {
  const perPartner = new Map<string, number>();
  for (const [userId, n] of perUser) {
    const partner = namespaceOf(userId);
    if (partner !== undefined) perPartner.set(partner, (perPartner.get(partner) ?? 0) + n);
  }
  return perPartner;
}

/** The statement that takes one of the namespace's slots with other writes (see recordNewTask): a row when taken. */
export function partnerSlotTaken(trx: Knex.Transaction, partner: string, limits: PartnerLimits): Knex.Raw<{ rows: unknown[] }> {
  return openTaskSlotTaken(trx, partnerSlots, partner, limits.maxOpenTasks);
}

/** A token from the namespace's bucket: undefined when taken, or the seconds until one is there. */
export function takePartnerToken(db: Knex | Knex.Transaction, partner: string, limits: PartnerLimits): Promise<number | undefined> {
  return takeToken(db, partnerBuckets, partner, limits.rateLimit, limits.rateBurst);
}

export function partnerTooFast(partner: string, limits: PartnerLimits, waitSeconds: number): ProblemWithHeaders {
  return new ProblemWithHeaders(
    HttpStatus.TOO_MANY_REQUESTS,
    `more than ${limits.rateLimit} tasks a second (burst ${limits.rateBurst}) across the users of ${partner}; slow down`,
    { 'Retry-After': String(waitSeconds) },
  );
}

export function partnerTooManyOpenTasks(partner: string, limits: PartnerLimits): ProblemWithHeaders {
  return new ProblemWithHeaders(
    HttpStatus.TOO_MANY_REQUESTS,
    `the users of ${partner} have ${limits.maxOpenTasks} unfinished tasks together, the most allowed; wait for some to finish`,
    { 'Retry-After': '5' },
  );
}
