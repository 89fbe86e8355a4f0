import { deadLetterTopicFor } from '@app/catalogue';
import { deadLetterHeaders, parseCursor, readDeadLetter, readDeadLetterPage } from '@app/dead-letters';
import { ensureTopics } from '@app/kafka';
import { MessagingWorld } from './support/messaging-world';

/**
 * Dead-letter pages read by offset range with a byte budget: a topic filled with large garbage costs
 * a page its budget, never the topic, and paging on shows every letter once, newest first.
 */
describe('dead-letter pages', () => {
  const world = new MessagingWorld();
  const group = () => `${world.env.topicPrefix}pages`;
  const letters: Array<{ id?: string; bytes: number; at: number }> = [];

  beforeAll(async () => {
    await world.setup();
    const topic = deadLetterTopicFor(group());
    await ensureTopics(world.kafka, [{ topic, partitions: 3 }]);
    const producer = world.kafka.producer();
    await producer.connect();
    try {
      // 60 small letters and, the newest, 20 of 512 KiB each (a partner's garbage), spread over 3 partitions
      const start = Date.parse('2026-01-01T00:00:00Z');
      for (let i = 0; i < 80; i++) {
        const bytes = i < 60 ? 100 : 512 * 1024;
        const at = start + i * 1000;
        const [placed] = await producer.send({
          topic,
          acks: -1,
          messages: [
            {
              key: `k${i}`,
              value: Buffer.alloc(bytes, 7),
              partition: i % 3,
              headers: {
                [deadLetterHeaders.failedAt]: new Date(at).toISOString(),
                [deadLetterHeaders.errorCode]: 'DECODE_FAILED',
                [deadLetterHeaders.topic]: 'somewhere',
              },
            },
          ],
        });
        letters.push({ id: `${placed.partition}:${placed.baseOffset}`, bytes, at });
      }
    } finally {
      await producer.disconnect();
    }
  });
  afterAll(() => world.teardown());

  it('pages through every letter once, newest first, values left out and large ones fewer to a page', async () => {
    // When an operator pages through with a budget of 9 MiB a page (3 MiB a partition)
    const seen: string[] = [];
    const pageSizes: number[] = [];
    let before: string | undefined;
    for (let pages = 0; pages < 40; pages++) {
      const page = await readDeadLetterPage(world.kafka, group(), { before: before ? parseCursor(before) : undefined, limit: 25, maxBytes: 9 * 1024 * 1024 });
      expect(page.total).toBe(80);
      expect(page.letters.every((l) => l.value === null)).toBe(true);
      seen.push(...page.letters.map((l) => l.id));
      pageSizes.push(page.letters.length);
      // Then no page holds more of the large letters than its budget takes
      expect(page.letters.reduce((sum, l) => sum + l.valueBytes, 0)).toBeLessThanOrEqual(9 * 1024 * 1024);
      if (!page.older) break;
      before = page.older;
    }
    // And every letter was shown once, newest first
    const newestFirst = [...letters].sort((a, b) => b.at - a.at).map((l) => l.id);
    expect(seen).toEqual(newestFirst);
    // And the pages of garbage were short, those of small letters full
    expect(pageSizes[0]).toBeLessThan(25);
    expect(Math.max(...pageSizes)).toBe(25);
  });

  it('reads one letter by id with its value, and nothing for an id it does not hold', async () => {
    const large = letters[79];
    const letter = await readDeadLetter(world.kafka, group(), large.id!);
    expect(letter?.value?.length).toBe(large.bytes);
    expect(await readDeadLetter(world.kafka, group(), '0:100000')).toBeUndefined();
    expect(await readDeadLetter(world.kafka, group(), 'x:1')).toBeUndefined();
  });

  it('refuses a cursor that is not partition:offset pairs', () => {
    expect(parseCursor('0:10,1:3')).toEqual(
      new Map([
        [0, 10],
        [1, 3],
      ]),
    );
    expect(parseCursor('0:10;drop')).toBeUndefined();
    expect(parseCursor('')).toBeUndefined();
  });
});
