import { ConfigError, loadServiceConfig } from './service.config';

describe('loadServiceConfig', () => {
  it('gives every service a working local default', () => {
    const config = loadServiceConfig('quota', {});
    expect(config).toEqual({
      service: 'quota',
      host: '127.0.0.1',
      port: 3001,
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/taskplatform_quota',
      kafkaBrokers: ['127.0.0.1:19092'],
      schemaRegistryUrl: 'http://127.0.0.1:18081/apis/ccompat/v7',
      topicPrefix: '',
      databaseTimeouts: { connectMs: 5000, statementMs: 30_000, idleInTransactionMs: 60_000 },
    });
  });

  it('points each service at its own database on the DATABASE_URL server unless overridden', () => {
    const env = { DATABASE_URL: 'postgres://app:secret@db.internal:6543/ignored', TASKS_DATABASE_URL: 'postgres://x@h/own' };
    expect(loadServiceConfig('generation', env).databaseUrl).toBe('postgres://app:secret@db.internal:6543/taskplatform_generation');
    expect(loadServiceConfig('tasks', env).databaseUrl).toBe('postgres://x@h/own');
  });

  it('reads ports, brokers and the topic prefix from the environment', () => {
    const config = loadServiceConfig('notification', {
      NOTIFICATION_PORT: '4003',
      KAFKA_BROKERS: 'a:1, b:2',
      TOPIC_PREFIX: 'audit.',
    });
    expect(config.port).toBe(4003);
    expect(config.kafkaBrokers).toEqual(['a:1', 'b:2']);
    expect(config.topicPrefix).toBe('audit.');
  });

  it('fails at boot listing every invalid setting', () => {
    const load = () =>
      loadServiceConfig('tasks', {
        TASKS_PORT: 'eighty',
        KAFKA_BROKERS: 'no-port',
        SCHEMA_REGISTRY_URL: 'ftp://x',
        DATABASE_URL: 'mysql://x',
        TOPIC_PREFIX: 'bad prefix',
      });
    expect(load).toThrow(ConfigError);
    try {
      load();
    } catch (error) {
      expect((error as ConfigError).problems).toEqual([
        'TASKS_PORT must be a port number, got "eighty"',
        'DATABASE_URL must be a postgres:// URL, got "mysql://x"',
        'KAFKA_BROKERS must be a comma-separated list of host:port, got "no-port"',
        'SCHEMA_REGISTRY_URL must be an http(s) URL, got "ftp://x"',
        'TOPIC_PREFIX may hold only letters, digits, ".", "_" and "-", got "bad prefix"',
      ]);
    }
  });
});
