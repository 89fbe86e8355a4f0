import { Module } from '@nestjs/common';
import { personalDataProvider } from '@app/personal-data';
import { ServiceModule } from '@app/service';
import { GENERATION_CONFIG, GenerationConfig, loadGenerationConfig } from './generation.config';
import { GenerationHandlers } from './generation.handlers';
import { GenerationsController } from './http/generations.controller';
import { SharesController } from './http/shares.controller';
import { ShareGauges } from './shares/share-gauges';
import { FailedJobCleanup } from './jobs/failed-job-cleanup';
import { GenerationWorker } from './jobs/generation.worker';
import { Reconciler } from './jobs/reconciler';
import { ReportStore } from './jobs/report-store';
import { generationMigrations } from './migrations';
import { ModelClient, modelEndpointOf } from './model/model.client';

@Module({
  imports: [
    ServiceModule.forRoot({
      service: 'generation',
      migrations: generationMigrations,
      handlers: GenerationHandlers,
      providers: [
        { provide: GENERATION_CONFIG, useFactory: () => loadGenerationConfig() },
        { provide: ShareGauges, useClass: ShareGauges },
        personalDataProvider,
        { provide: ModelClient, inject: [GENERATION_CONFIG], useFactory: (c: GenerationConfig) => new ModelClient(modelEndpointOf(c)) },
        { provide: ReportStore, inject: [GENERATION_CONFIG], useFactory: (c: GenerationConfig) => new ReportStore(c.reportsDir) },
        { provide: FailedJobCleanup, useClass: FailedJobCleanup },
        { provide: GenerationWorker, useClass: GenerationWorker },
        { provide: Reconciler, useClass: Reconciler },
      ],
    }),
  ],
  controllers: [GenerationsController, SharesController],
})
export class GenerationModule {}
