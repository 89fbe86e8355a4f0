import { ConfigError, loadServiceConfig, ServiceName, serviceNames } from '@app/config';

export const CONSOLE_CONFIG = Symbol('CONSOLE_CONFIG');

export interface ConsoleConfig {
  host: string;
  port: number;
  /** Where each service's HTTP API answers: the console reads through them, never their databases. */
  serviceUrls: Record<ServiceName, string>;
  kafkaBrokers: string[];
  schemaRegistryUrl: string;
  topicPrefix: string;
  /** Cookies marked Secure: on whenever the console is served over https. */
  secureCookies: boolean;
  /** Zipkin's address, for the link from a task to its trace. */
  tracesUrl: string;
  /** Re-drive pace when the form names none, messages per second. */
  defaultRedriveRate: number;
  /** The Prometheus the charts are read from (server-side: the browser never reaches it), and the labels that pick this platform's series. */
  prometheus: { url: string; selector: string };
}

/** Every problem at once, like the services' own configuration. */
export function loadConsoleConfig(env: NodeJS.ProcessEnv = process.env): ConsoleConfig {
  const problems: string[] = [];
  const port = Number(env.CONSOLE_PORT || 3004);
  if (!Number.isInteger(port) || port < 0 || port > 65535) problems.push(`CONSOLE_PORT must be a port number, got "${env.CONSOLE_PORT}"`);
  const serviceUrls = {} as Record<ServiceName, string>;
  for (const service of serviceNames) {
    const variable = `${service.toUpperCase()}_URL`;
    const fallback = () => {
      try {
        return `http://127.0.0.1:${loadServiceConfig(service, env).port}`;
      } catch (error) {
        problems.push(...((error as ConfigError).problems ?? [String(error)]));
        return '';
      }
    };
    const url = env[variable] || fallback();
    if (url && !/^https?:\/\/[^\s/]+/.test(url)) problems.push(`${variable} must be an http(s) URL, got "${url}"`);
    serviceUrls[service] = url.replace(/\/+$/, '');
  }
  const { kafkaBrokers, topicPrefix, schemaRegistryUrl } = safely(() => loadServiceConfig('tasks', env), problems) ?? {
    kafkaBrokers: [],
    topicPrefix: '',
    schemaRegistryUrl: '',
  };
  const rate = Number(env.CONSOLE_REDRIVE_RATE || 10);
  if (!(rate > 0 && rate <= 1000)) problems.push(`CONSOLE_REDRIVE_RATE must be between 1 and 1000 messages per second, got "${env.CONSOLE_REDRIVE_RATE}"`);
  const selector = env.CONSOLE_PROMETHEUS_SELECTOR ?? '';
  if (selector && !/^[a-z_]+="[\w.-]*"(,[a-z_]+="[\w.-]*")*$/.test(selector)) {
    problems.push(`CONSOLE_PROMETHEUS_SELECTOR must be label matchers such as platform="local", got "${selector}"`);
  }
  if (problems.length) throw new ConfigError('console', [...new Set(problems)]);
  return {
    host: env.HOST || '127.0.0.1',
    port,
    serviceUrls,
    kafkaBrokers,
    schemaRegistryUrl,
    topicPrefix,
    secureCookies: env.CONSOLE_SECURE_COOKIES === 'on',
    defaultRedriveRate: rate,
    tracesUrl: (env.CONSOLE_TRACES_URL || 'http://127.0.0.1:19411').replace(/\/+$/, ''),
    prometheus: { url: (env.CONSOLE_PROMETHEUS_URL || 'http://127.0.0.1:19090').replace(/\/+$/, ''), selector },
  };
}

function safely<T>(load: () => T, problems: string[]): T | undefined {
  try {
    return load();
  } catch (error) {
    problems.push(...((error as ConfigError).problems ?? [String(error)]));
    return undefined;
  }
}
