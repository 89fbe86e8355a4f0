import './instrument';
import { runService } from '@app/service';
import { loadGenerationConfig } from './generation.config';
import { generationMigrations } from './migrations';
import { GenerationModule } from './generation.module';

void runService(GenerationModule, 'generation', generationMigrations, [() => loadGenerationConfig()]);
