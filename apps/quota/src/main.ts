import './instrument';
import { runService } from '@app/service';
import { loadQuotaConfig } from './quota.config';
import { quotaMigrations } from './migrations';
import { QuotaModule } from './quota.module';

void runService(QuotaModule, 'quota', quotaMigrations, [() => loadQuotaConfig()]);
