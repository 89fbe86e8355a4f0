import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import type { Knex } from 'knex';
import { KNEX } from '@app/database';
import { atMostOncePerSecond, registerReadGauge } from '@app/metrics';

interface ShareUsage {
  usersRunning: number;
  usersWithDueJobs: number;
  busiestUserRunning: number;
}

/**
 * How the slots are shared, as gauges with no label per user (their number is unbounded): users
 * running attempts, users with due jobs waiting, and the most one user runs. Who they are is asked
 * of GET /users/busiest, which the console shows.
 */
@Injectable()
export class ShareGauges implements OnApplicationBootstrap {
  constructor(@Inject(KNEX) private readonly knex: Knex) {}

  onApplicationBootstrap(): void {
    const usage = atMostOncePerSecond(() => this.read());
    registerReadGauge('generation_users_running', 'Users with at least one generation attempt running', async () => (await usage()).usersRunning);
    registerReadGauge('generation_users_with_due_jobs', 'Users with generation jobs due and not yet started', async () => (await usage()).usersWithDueJobs);
    registerReadGauge('generation_busiest_user_running', 'The most generation attempts one user runs at once', async () => (await usage()).busiestUserRunning);
  }

  private async read(): Promise<ShareUsage> {
    const { rows } = await this.knex.raw<{ rows: ShareUsage[] }>(
      `select count(distinct user_id) filter (where status = 'running')::int as "usersRunning",
              count(distinct user_id) filter (where status = 'scheduled' and next_attempt_at <= now())::int as "usersWithDueJobs",
              coalesce((select max(n) from (select count(*) as n from generation_jobs where status = 'running' group by user_id) r), 0)::int as "busiestUserRunning"
         from generation_jobs where status in ('running', 'scheduled')`,
    );
    return rows[0];
  }
}
