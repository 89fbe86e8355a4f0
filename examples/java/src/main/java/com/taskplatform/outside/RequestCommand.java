package com.taskplatform.outside;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.UUID;

import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * `request --user U --key K [--input JSON] [--task-id UUID] [--twice]`: publishes one TaskRequested
 * (the registry's latest schema of task-requested-value, key = taskId; `--twice` sends the very same
 * message again, as a retrying producer would), then reads the outcome topics until this task's
 * TaskCompleted, TaskFailed or TaskRejected arrives, and prints it as one JSON line.
 */
final class RequestCommand {
  private static final List<String> OUTCOMES = List.of("task-completed", "task-failed", "task-rejected");

  static void run(Settings settings, Arguments args) throws Exception {
    Registry registry = new Registry(settings);
    String taskId = args.value("task-id", UUID.randomUUID().toString());
    Registry.Latest latest = registry.latest(settings.subject("task-requested"));
    GenericRecord request = new GenericData.Record(latest.schema());
    request.put("eventId", UUID.randomUUID().toString());
    request.put("eventType", "TaskRequested");
    request.put("occurredAt", System.currentTimeMillis());
    request.put("taskId", taskId);
    request.put("userId", args.required("user"));
    request.put("correlationId", UUID.randomUUID().toString());
    request.put("causationId", null);
    request.put("producer", "java-example");
    request.put("idempotencyKey", args.required("key"));
    request.put("reportType", "summary");
    request.put("input", args.value("input", "{}"));
    byte[] value = Registry.encode(latest.id(), request);

    try (KafkaConsumer<String, byte[]> outcomes = outcomeConsumer(settings)) {
      outcomes.subscribe(OUTCOMES.stream().map(settings::topic).toList());
      publish(settings, taskId, request, value, args.flag("twice") ? 2 : 1);
      System.out.println(awaitOutcome(outcomes, registry, taskId));
    }
  }

  private static void publish(Settings settings, String taskId, GenericRecord request, byte[] value, int times) throws Exception {
    Properties props = settings.kafka("java-example-producer");
    props.put("acks", "all");
    props.put("enable.idempotence", "true");
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(props, new StringSerializer(), new ByteArraySerializer())) {
      for (int i = 0; i < times; i++) {
        ProducerRecord<String, byte[]> record = new ProducerRecord<>(settings.topic("task-requested"), taskId, value);
        record.headers().add("eventId", request.get("eventId").toString().getBytes(StandardCharsets.UTF_8));
        record.headers().add("eventType", "TaskRequested".getBytes(StandardCharsets.UTF_8));
        producer.send(record).get();
      }
    }
  }

  /** A group of its own (named as the principal's ACLs ask), from the beginning. */
  private static KafkaConsumer<String, byte[]> outcomeConsumer(Settings settings) {
    Properties props = settings.kafka("java-example-consumer");
    props.put("group.id", settings.group("java-" + UUID.randomUUID()));
    props.put("auto.offset.reset", "earliest");
    props.put("enable.auto.commit", "false");
    return new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer());
  }

  /** Deliveries are at least once: the outcome is recognised by its key, the taskId. */
  private static String awaitOutcome(KafkaConsumer<String, byte[]> outcomes, Registry registry, String taskId) throws Exception {
    long deadline = System.currentTimeMillis() + 120_000;
    while (System.currentTimeMillis() < deadline) {
      for (ConsumerRecord<String, byte[]> record : outcomes.poll(Duration.ofMillis(500))) {
        if (taskId.equals(record.key())) return registry.decode(record.value()).toString();
      }
    }
    throw new IllegalStateException("no outcome for task " + taskId + " within 120 s");
  }
}
