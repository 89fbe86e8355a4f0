import type { IHeaders, KafkaMessage } from 'kafkajs';
import { deadLetterHeaders, deadLetterMessage, withoutValue } from './dead-letter-format';

const consumed = (headers: IHeaders): KafkaMessage => ({
  key: Buffer.from('task-1'),
  value: Buffer.from('x'.repeat(100)),
  headers,
  offset: '42',
  timestamp: '0',
  attributes: 0,
});

const failure = {
  topic: 'partner.acme.task-requested',
  partition: 0,
  consumer: 'tasks',
  errorCode: 'DECODE_FAILED' as const,
  error: new Error('not Avro'),
  attempts: 1,
};

describe('a dead letter', () => {
  it("keeps the sender's headers but drops those named like ours, whatever their case: a sender's dlq-redrives would park its own letter", () => {
    // Given a message whose sender set dead-letter headers of its own
    const message = consumed({ traceparent: 'tp', 'dlq-redrives': '9', 'DLQ-Error-Code': 'FORGED', 'dlq-consumer': 'quota' });
    // When it is dead-lettered
    const letter = deadLetterMessage({ ...failure, message });
    // Then the letter says what the platform found, and nothing the sender said in our names
    expect(letter.headers).toMatchObject({ traceparent: 'tp', [deadLetterHeaders.errorCode]: 'DECODE_FAILED', [deadLetterHeaders.consumer]: 'tasks' });
    expect(letter.headers).not.toHaveProperty(deadLetterHeaders.redrives);
    expect(letter.headers).not.toHaveProperty('DLQ-Error-Code');
  });

  it('counts the re-drives a re-drive says, and only those', () => {
    expect(deadLetterMessage({ ...failure, message: consumed({}), redrives: 2 }).headers).toMatchObject({ [deadLetterHeaders.redrives]: '2' });
  });

  it('bounds the error text', () => {
    const letter = deadLetterMessage({ ...failure, message: consumed({}), error: new Error('e'.repeat(100_000)) });
    expect(String(letter.headers![deadLetterHeaders.errorMessage]).length).toBe(2000);
  });

  it('goes, when the whole would not fit, with the error headers alone and the size of what it left out', () => {
    const letter = withoutValue(deadLetterMessage({ ...failure, message: consumed({ big: 'y'.repeat(1000) }) }));
    expect(letter.value).toBeNull();
    expect(letter.headers).not.toHaveProperty('big');
    expect(letter.headers).toMatchObject({
      [deadLetterHeaders.valueDropped]: '100 bytes',
      [deadLetterHeaders.offset]: '42',
      [deadLetterHeaders.topic]: failure.topic,
    });
  });
});
