import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { kafkaSecurityFromEnv } from './kafka-security';

describe('kafkaSecurityFromEnv', () => {
  it('connects in plaintext without credentials when nothing is set', () => {
    expect(kafkaSecurityFromEnv({})).toEqual({});
  });

  it('takes SCRAM-SHA-512 when only a username and password are given', () => {
    expect(kafkaSecurityFromEnv({ KAFKA_USERNAME: 'quota', KAFKA_PASSWORD: 'secret' }).sasl).toEqual({
      mechanism: 'scram-sha-512',
      username: 'quota',
      password: 'secret',
    });
  });

  it('reads the password from KAFKA_PASSWORD_FILE, as mounted secrets are, without its trailing newline', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kafka-secret-')), 'quota.password');
    fs.writeFileSync(file, 'from-a-file\n');
    expect(kafkaSecurityFromEnv({ KAFKA_USERNAME: 'quota', KAFKA_PASSWORD_FILE: file }).sasl).toMatchObject({ password: 'from-a-file' });
  });

  it('names the variable when the password file cannot be read', () => {
    expect(() => kafkaSecurityFromEnv({ KAFKA_USERNAME: 'quota', KAFKA_PASSWORD_FILE: '/nonexistent/quota.password' })).toThrow(
      /KAFKA_PASSWORD_FILE \/nonexistent/,
    );
  });

  it('refuses a mechanism without a password and an unknown mechanism', () => {
    expect(() => kafkaSecurityFromEnv({ KAFKA_USERNAME: 'quota' })).toThrow(/needs KAFKA_USERNAME and KAFKA_PASSWORD/);
    expect(() => kafkaSecurityFromEnv({ KAFKA_SASL_MECHANISM: 'gssapi', KAFKA_USERNAME: 'q', KAFKA_PASSWORD: 'p' })).toThrow(/must be one of/);
  });

  it('trusts the given CA for TLS', () => {
    const ca = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kafka-ca-')), 'ca.pem');
    fs.writeFileSync(ca, '-----BEGIN CERTIFICATE-----\n');
    expect(kafkaSecurityFromEnv({ KAFKA_SSL_CA: ca }).ssl).toEqual({ ca: ['-----BEGIN CERTIFICATE-----\n'] });
    expect(kafkaSecurityFromEnv({ KAFKA_SSL: 'on' }).ssl).toBe(true);
  });
});
