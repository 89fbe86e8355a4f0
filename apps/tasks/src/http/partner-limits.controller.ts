import { ApiBody, ApiTags } from '@nestjs/swagger';
import { Body, Controller, ForbiddenException, Get, Inject, Param, Put } from '@nestjs/common';
import type { Knex } from 'knex';
import { Caller, isAdmin, isOperator } from '@app/auth';
import { partnerNamePattern } from '@app/catalogue';
import { KNEX } from '@app/database';
import { BodyShape, CurrentCaller, readBody, requireText, schemaOf } from '@app/service';
import { limitsWithUse, PartnerLimits, setLimits } from '../partners/partner-limits';
import { TASKS_CONFIG, TasksConfig } from '../tasks.config';

const count = (description: string) => ({ kind: 'integer', min: 1, max: 1_000_000, description }) as const;

/** PUT /partners/{partner}/limits's body: any of the settings. */
const limitsShape: BodyShape = {
  fields: {
    maxOpenTasks: count('unfinished tasks at once, across all the users of the namespace'),
    rateLimit: count('requests a second across all its users'),
    rateBurst: count('requests above the rate a burst may bring'),
  },
  required: [],
  closed: true,
};

/**
 * A namespace's limits (a partner's, or `external`'s): what all its users may ask of tasks together,
 * whichever way they ask. Its budget (what they may draw) is quota's: GET /partners/{partner}/budget.
 */
@ApiTags('tasks')
@Controller('partners')
export class PartnerLimitsController {
  constructor(
    @Inject(KNEX) private readonly knex: Knex,
    @Inject(TASKS_CONFIG) private readonly config: TasksConfig,
  ) {}

  /** Operators: the limits as they stand, the defaults filled in, with the namespace's unfinished tasks. */
  @Get(':partner/limits')
  async get(@CurrentCaller() caller: Caller, @Param('partner') partner: string): Promise<PartnerLimits & { partner: string; openTasks: number }> {
    if (!isOperator(caller)) throw new ForbiddenException("only an operator reads a partner's limits");
    requireText(partner, 'partner', { max: 31, pattern: partnerNamePattern });
    return { partner, ...(await limitsWithUse(this.knex, partner, this.config.partnerDefaults)) };
  }

  /** Admin only. A lower cap refuses new tasks; it ends none of those open. */
  @Put(':partner/limits')
  @ApiBody({ schema: schemaOf(limitsShape) })
  async put(
    @CurrentCaller() caller: Caller,
    @Param('partner') partner: string,
    @Body() body: unknown,
  ): Promise<PartnerLimits & { partner: string; openTasks: number }> {
    if (!isAdmin(caller)) throw new ForbiddenException("only an admin sets a partner's limits");
    requireText(partner, 'partner', { max: 31, pattern: partnerNamePattern });
    await setLimits(this.knex, partner, readBody(body, limitsShape, 'body') as Partial<PartnerLimits>);
    return { partner, ...(await limitsWithUse(this.knex, partner, this.config.partnerDefaults)) };
  }
}
