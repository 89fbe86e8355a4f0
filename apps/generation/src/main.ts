import './instrument';
import { bootstrapService } from '@app/service';
import { GenerationModule } from './generation.module';

void bootstrapService(GenerationModule, 'generation');
