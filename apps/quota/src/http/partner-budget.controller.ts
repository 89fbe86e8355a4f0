import { ApiBody, ApiTags } from '@nestjs/swagger';
import { Body, Controller, ForbiddenException, Get, Inject, Param, Put } from '@nestjs/common';
import type { Knex } from 'knex';
import { Caller, isAdmin, isOperator } from '@app/auth';
import { partnerNamePattern } from '@app/catalogue';
import { KNEX } from '@app/database';
import { BodyShape, CurrentCaller, readBody, requireText, schemaOf } from '@app/service';
import type { Budget, BudgetSettings } from '../partners/allowances';
import { budgetOf, setBudget } from '../partners/partner-budgets';
import { QUOTA_CONFIG, QuotaConfig } from '../quota.config';

const units = { kind: 'integer', min: 0, max: 2 ** 31 - 1 } as const;

/** PUT /partners/{partner}/budget's body: either setting, or both. */
const budgetShape: BodyShape = {
  fields: {
    newUserQuota: { ...units, description: 'what each new user of the namespace starts with, while the cap holds' },
    drawCap: { ...units, description: 'what all its users may draw so, together; past it a new user starts with nothing' },
  },
  required: [],
  closed: true,
};

/**
 * A namespace's budget (a partner's, or `external`'s): the one place its users' starting quota is
 * set. A partner names its users; without a cap, each one it invents would be quota nobody granted.
 */
@ApiTags('quota')
@Controller('partners')
export class PartnerBudgetController {
  constructor(
    @Inject(KNEX) private readonly knex: Knex,
    @Inject(QUOTA_CONFIG) private readonly config: QuotaConfig,
  ) {}

  /** Operators: the budget as it stands, its defaults filled in. */
  @Get(':partner/budget')
  async get(@CurrentCaller() caller: Caller, @Param('partner') partner: string): Promise<Budget & { partner: string }> {
    if (!isOperator(caller)) throw new ForbiddenException("only an operator reads a partner's budget");
    requireText(partner, 'partner', { max: 31, pattern: partnerNamePattern });
    return { partner, ...(await budgetOf(this.knex, partner, this.config.partnerDefaults)) };
  }

  /** Admin only; setting what it already is changes nothing. What was drawn is kept: a lower cap stops new grants, it takes none back. */
  @Put(':partner/budget')
  @ApiBody({ schema: schemaOf(budgetShape) })
  async put(@CurrentCaller() caller: Caller, @Param('partner') partner: string, @Body() body: unknown): Promise<Budget & { partner: string }> {
    if (!isAdmin(caller)) throw new ForbiddenException("only an admin sets a partner's budget");
    requireText(partner, 'partner', { max: 31, pattern: partnerNamePattern });
    await setBudget(this.knex, partner, readBody(body, budgetShape, 'body') as Partial<BudgetSettings>);
    return { partner, ...(await budgetOf(this.knex, partner, this.config.partnerDefaults)) };
  }
}
