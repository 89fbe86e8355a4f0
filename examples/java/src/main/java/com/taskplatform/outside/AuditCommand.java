package com.taskplatform.outside;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * `audit`: as the auditor (or a partner, over its own topics), reads every event topic it may read (behind TOPIC_PREFIX) from the
 * beginning to its end as of now, decodes each value with the writer's schema fetched by the id it
 * carries, and prints one JSON line: the events by type, and every task with two terminal events.
 */
final class AuditCommand {
  private static final Set<String> TERMINAL = Set.of("TaskCompleted", "TaskFailed", "TaskRejected");

  static void run(Settings settings) throws Exception {
    Registry registry = new Registry(settings);
    Map<String, Integer> counts = new TreeMap<>();
    Map<String, List<String>> terminalByTask = new TreeMap<>();
    int undecodable = 0;
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(settings.kafka("java-example-audit"), new StringDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions = eventPartitions(settings, consumer);
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
      while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
        for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(500))) {
          GenericRecord event;
          try {
            event = registry.decode(record.value());
          } catch (Exception notOurs) {
            undecodable++;
            continue;
          }
          String type = event.get("eventType").toString();
          counts.merge(type, 1, Integer::sum);
          if (TERMINAL.contains(type)) terminalByTask.computeIfAbsent(event.get("taskId").toString(), k -> new ArrayList<>()).add(type);
        }
      }
    }
    Map<String, List<String>> twice = terminalByTask.entrySet().stream()
        .filter(e -> e.getValue().size() > 1)
        .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue, (a, b) -> a, TreeMap::new));
    Map<String, Object> report = new TreeMap<>(Map.of("counts", counts, "tasksWithTwoOutcomes", twice, "undecodable", undecodable));
    System.out.println(new ObjectMapper().writeValueAsString(report));
  }

  /**
   * The event topics this principal may read: the ones the brokers show it (ACLs hide the rest)
   * behind the prefix, the partners' request topics among them (`partner.<name>.task-requested`),
   * but for dead letters and re-drive logs, which are no events of the contract.
   */
  private static List<TopicPartition> eventPartitions(Settings settings, KafkaConsumer<String, byte[]> consumer) throws Exception {
    Set<String> topics = new TreeSet<>();
    Properties props = settings.kafka("java-example-audit-admin");
    try (Admin admin = Admin.create(props)) {
      for (String name : admin.listTopics().names().get()) {
        if (!name.startsWith(settings.prefix)) continue;
        String rest = name.substring(settings.prefix.length());
        boolean event = rest.matches("(partner\\.[a-z][a-z0-9-]*\\.)?[a-z]+(-[a-z]+)+");
        if (event && !rest.startsWith("dead-letters") && !rest.contains("redrive")) topics.add(name);
      }
    }
    List<TopicPartition> partitions = new ArrayList<>();
    for (String topic : topics) {
      for (PartitionInfo info : consumer.partitionsFor(topic)) partitions.add(new TopicPartition(topic, info.partition()));
    }
    return partitions;
  }
}
