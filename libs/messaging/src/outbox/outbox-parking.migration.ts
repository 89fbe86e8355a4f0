import type { Migration } from '@app/database';

/**
 * Rows the broker refuses for their size are parked: kept, marked and skipped, so that they stop
 * later rows of their own key only. Every service lists this migration after its own first ones.
 */
export const outboxParking: Migration = {
  name: '000-outbox-parking',
  async up(knex) {
    await knex.schema.alterTable('outbox', (t) => {
      t.timestamp('parked_at', { useTz: true });
      t.text('park_reason');
    });
    await knex.raw('create index outbox_parked on outbox (message_key, id) where parked_at is not null and published_at is null');
  },
  async down(knex) {
    await knex.raw('drop index if exists outbox_parked');
    await knex.schema.alterTable('outbox', (t) => {
      t.dropColumn('park_reason');
      t.dropColumn('parked_at');
    });
  },
};

/**
 * Where Kafka appended each published row (partition and offset, as the broker acknowledged them):
 * an audit can then prove an acknowledged event is still on its topic, at its place.
 */
export const outboxPlaces: Migration = {
  name: '000-outbox-places',
  async up(knex) {
    await knex.schema.alterTable('outbox', (t) => {
      t.integer('kafka_partition');
      t.bigInteger('kafka_offset');
    });
  },
  async down(knex) {
    await knex.schema.alterTable('outbox', (t) => {
      t.dropColumn('kafka_offset');
      t.dropColumn('kafka_partition');
    });
  },
};

/**
 * A row may name the topic it goes to (behind the deployment's prefix): a copy of an event for one
 * partner's own outcome topic, beside the event on its own topic (see outbox copies). An event is
 * then written once per topic, so its id is unique per topic.
 */
export const outboxCopies: Migration = {
  name: '000-outbox-copies',
  async up(knex) {
    await knex.schema.alterTable('outbox', (t) => t.text('topic'));
    await knex.raw('alter table outbox drop constraint outbox_event_id_unique');
    await knex.raw("create unique index outbox_event_topic on outbox (event_id, coalesce(topic, ''))");
  },
  async down(knex) {
    await knex.raw('drop index outbox_event_topic');
    await knex.raw('delete from outbox where topic is not null');
    await knex.raw('alter table outbox add constraint outbox_event_id_unique unique (event_id)');
    await knex.schema.alterTable('outbox', (t) => t.dropColumn('topic'));
  },
};

/**
 * A row may be parked until a time (its destination refused it: a partner removed), when the relay
 * tries it again; null keeps it until an operator releases it (too large). A parked row holds back
 * later rows of its key and destination only: the index serves that look-up.
 */
export const outboxParkedUntil: Migration = {
  name: '000-outbox-parked-until',
  async up(knex) {
    await knex.schema.alterTable('outbox', (t) => t.timestamp('parked_until', { useTz: true }));
    await knex.raw(
      'create index outbox_parked_by_destination on outbox (message_key, (coalesce(topic, event_type)), id) where parked_at is not null and published_at is null',
    );
  },
  async down(knex) {
    await knex.raw('drop index if exists outbox_parked_by_destination');
    await knex.schema.alterTable('outbox', (t) => t.dropColumn('parked_until'));
  },
};
