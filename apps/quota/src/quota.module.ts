import { Module } from '@nestjs/common';
import { ServiceModule } from '@app/service';
import { quotaMigrations } from './migrations';

@Module({
  imports: [ServiceModule.forRoot({ service: 'quota', migrations: quotaMigrations })],
})
export class QuotaModule {}
