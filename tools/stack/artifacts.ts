import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { StackError } from './processes';
import { pomFile, StackConfig } from './stack.config';
import { requireCommand } from './toolchain';

export function kafkaLibs(config: StackConfig): string {
  return path.join(config.stackDir, 'dist', `kafka-${config.kafka.version}`, 'libs');
}

export function registryJar(config: StackConfig): string {
  return path.join(config.stackDir, 'dist', `apicurio-${config.registry.version}`, 'quarkus-run.jar');
}

export function zipkinJar(config: StackConfig): string {
  return path.join(config.stackDir, 'dist', `zipkin-${config.zipkin.version}`, 'zipkin-server.jar');
}

/**
 * Brings the Kafka jars the Apicurio distribution and the Zipkin server from Maven Central through Maven, once per
 * pinned version. Maven's own cache (~/.m2) keeps later fetches offline and fast.
 */
export function ensureArtifacts(config: StackConfig): void {
  const haveKafka = fs.existsSync(path.join(kafkaLibs(config), `kafka_2.13-${config.kafka.version}.jar`));
  if (haveKafka && fs.existsSync(registryJar(config)) && fs.existsSync(zipkinJar(config))) return;
  requireCommand('java', 'default-jre-headless');
  const mvn = requireCommand('mvn', 'maven');
  process.stdout.write(`fetching Kafka ${config.kafka.version}, Apicurio Registry ${config.registry.version} and Zipkin ${config.zipkin.version} with Maven\n`);
  const logFile = path.join(config.logsDir, 'maven.log');
  fs.mkdirSync(config.logsDir, { recursive: true });
  const result = spawnSync(mvn, ['-B', '-f', pomFile, 'package', `-Dstack.dir=${config.stackDir}`], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  fs.writeFileSync(logFile, `${result.stdout ?? ''}${result.stderr ?? ''}`);
  if (result.status !== 0 || !fs.existsSync(registryJar(config)) || !fs.existsSync(zipkinJar(config))) {
    throw new StackError('maven', `Maven could not fetch the stack's artifacts (exit ${result.status})`, logFile);
  }
}
