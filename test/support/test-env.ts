import { defaults, ServiceName } from '@app/config';
import { dropDatabase } from '@app/database';
import { uniqueSuffix } from './unique';

/**
 * An isolated world for one test file on the shared stack: its own topic prefix and one database
 * per service, dropped afterwards.
 */
export class TestEnv {
  readonly suffix = uniqueSuffix();
  readonly topicPrefix = `t${this.suffix}.`;
  readonly serverUrl = process.env.DATABASE_URL || defaults.databaseUrl;

  databaseUrl(service: ServiceName): string {
    const url = new URL(this.serverUrl);
    url.pathname = `/test_${this.suffix}_${service}`;
    return url.toString();
  }

  /** Environment for a service process started in this world. */
  serviceEnv(service: ServiceName): NodeJS.ProcessEnv {
    return { TOPIC_PREFIX: this.topicPrefix, [`${service.toUpperCase()}_DATABASE_URL`]: this.databaseUrl(service) };
  }

  async dropDatabases(services: readonly ServiceName[]): Promise<void> {
    for (const service of services) await dropDatabase(this.databaseUrl(service));
  }
}
