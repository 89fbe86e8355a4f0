import { Module } from '@nestjs/common';
import { ServiceModule } from '@app/service';
import { PartnerBudgetController } from './http/partner-budget.controller';
import { QuotaController } from './http/quota.controller';
import { quotaMigrations } from './migrations';
import { loadQuotaConfig, QUOTA_CONFIG } from './quota.config';
import { QuotaHandlers } from './quota.handlers';

@Module({
  imports: [
    ServiceModule.forRoot({
      service: 'quota',
      migrations: quotaMigrations,
      handlers: QuotaHandlers,
      providers: [{ provide: QUOTA_CONFIG, useFactory: () => loadQuotaConfig() }],
    }),
  ],
  controllers: [QuotaController, PartnerBudgetController],
})
export class QuotaModule {}
