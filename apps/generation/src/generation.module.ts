import { Module } from '@nestjs/common';
import { ServiceModule } from '@app/service';
import { GENERATION_CONFIG, loadGenerationConfig } from './generation.config';
import { GenerationHandlers } from './generation.handlers';
import { GenerationsController } from './http/generations.controller';
import { GenerationWorker } from './jobs/generation.worker';
import { Reconciler } from './jobs/reconciler';
import { generationMigrations } from './migrations';

@Module({
  imports: [
    ServiceModule.forRoot({
      service: 'generation',
      migrations: generationMigrations,
      handlers: GenerationHandlers,
      providers: [
        { provide: GENERATION_CONFIG, useFactory: () => loadGenerationConfig() },
        { provide: GenerationWorker, useClass: GenerationWorker },
        { provide: Reconciler, useClass: Reconciler },
      ],
    }),
  ],
  controllers: [GenerationsController],
})
export class GenerationModule {}
