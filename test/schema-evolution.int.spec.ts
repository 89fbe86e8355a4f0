import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { defaults } from '@app/config';
import { registryAuthFromEnv } from '@app/kafka';
import { uniqueSuffix } from './support/unique';

describe('schema evolution under the registry global BACKWARD rule', () => {
  // As provisioning (admin): the one principal that may register.
  const registry = new SchemaRegistry({ host: defaults.schemaRegistryUrl, auth: registryAuthFromEnv() });
  const subject = `t${uniqueSuffix()}.report-ready-value`;
  const v1 = {
    type: 'record' as const,
    name: 'ReportReady',
    namespace: 'com.taskplatform.test',
    fields: [
      { name: 'taskId', type: 'string' },
      { name: 'pages', type: 'int' },
    ],
  };
  const register = (schema: object) => registry.register({ type: SchemaType.AVRO, schema: JSON.stringify(schema) }, { subject });

  it('refuses a new required field, accepts a new optional one, and an old reader decodes the new message', async () => {
    // Given
    const { id: v1Id } = await register(v1);

    // When an incompatible version (a required field old data lacks) is registered
    const incompatible = { ...v1, fields: [...v1.fields, { name: 'format', type: 'string' }] };
    // Then the registry refuses it
    await expect(register(incompatible)).rejects.toThrow(/incompatible/i);

    // When a compatible version (an optional field with a default) is registered
    const compatible = { ...v1, fields: [...v1.fields, { name: 'format', type: ['null', 'string'], default: null }] };
    const { id: v2Id } = await register(compatible);
    // Then it gets a new id
    expect(v2Id).not.toBe(v1Id);

    // And a message written with v2 is read by a v1 reader, which ignores the new field
    const written = await registry.encode(v2Id, { taskId: 't-1', pages: 3, format: 'pdf' });
    const oldReader = new SchemaRegistry({ host: defaults.schemaRegistryUrl, auth: registryAuthFromEnv() });
    const read = await oldReader.decode(written, { [SchemaType.AVRO]: { readerSchema: v1 } });
    expect(read).toEqual({ taskId: 't-1', pages: 3 });
  });
});
