import { Controller, Get, Header } from '@nestjs/common';
import { Public } from '@app/auth';
import { metricsRegistry } from './metrics';

/** GET /metrics in Prometheus' text format; public, like /health: counts only, nothing of any user. */
@Public()
@Controller('metrics')
export class MetricsController {
  @Get()
  @Header('Content-Type', metricsRegistry.contentType)
  metrics(): Promise<string> {
    return metricsRegistry.metrics();
  }
}
