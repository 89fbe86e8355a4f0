import { Module } from '@nestjs/common';
import { ServiceModule } from '@app/service';
import { generationMigrations } from './migrations';

@Module({
  imports: [ServiceModule.forRoot({ service: 'generation', migrations: generationMigrations })],
})
export class GenerationModule {}
