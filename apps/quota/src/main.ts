import './instrument';
import { bootstrapService } from '@app/service';
import { QuotaModule } from './quota.module';

void bootstrapService(QuotaModule, 'quota');
