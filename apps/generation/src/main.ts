import './instrument';
import { runService } from '@app/service';
import { generationMigrations } from './migrations';
import { GenerationModule } from './generation.module';

void runService(GenerationModule, 'generation', generationMigrations);
