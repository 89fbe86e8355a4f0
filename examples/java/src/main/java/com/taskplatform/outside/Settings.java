package com.taskplatform.outside;

import java.util.Properties;

/**
 * Where the platform is and who this system is, from the same variables as the Node example:
 * KAFKA_BROKERS, KAFKA_USERNAME and KAFKA_PASSWORD (SCRAM-SHA-512), KAFKA_SSL_CA (a PEM file: the TLS
 * listener), SCHEMA_REGISTRY_URL with SCHEMA_REGISTRY_USERNAME and SCHEMA_REGISTRY_PASSWORD (HTTP
 * Basic), TOPIC_PREFIX, and PARTNER: the partner this system is (`npm run partner:add -- <name>`),
 * whose own topics it writes and reads; without it, the deprecated shared topics of `external`.
 */
final class Settings {
  final String brokers = env("KAFKA_BROKERS", "127.0.0.1:19092");
  final String registryUrl = env("SCHEMA_REGISTRY_URL", "http://127.0.0.1:18081/apis/ccompat/v7");
  final String registryUser = env("SCHEMA_REGISTRY_USERNAME", "");
  final String registryPassword = env("SCHEMA_REGISTRY_PASSWORD", "");
  final String prefix = env("TOPIC_PREFIX", "");
  final String partner = env("PARTNER", "");
  private final String username = env("KAFKA_USERNAME", "");
  private final String password = env("KAFKA_PASSWORD", "");
  private final String sslCa = env("KAFKA_SSL_CA", "");

  private static String env(String name, String fallback) {
    String value = System.getenv(name);
    return value == null || value.isEmpty() ? fallback : value;
  }

  /** A topic of the contract: the partner's own (`partner.<name>.task-requested`), or the shared one. */
  String topic(String name) {
    return partner.isEmpty() ? prefix + name : prefix + "partner." + partner + "." + name;
  }

  /** An event's registry subject: one per event, whichever topic carries it. */
  String subject(String topicName) {
    return prefix + topicName + "-value";
  }

  /** A consumer group of its own, named as its principal's ACLs ask. */
  String group(String name) {
    return prefix + (partner.isEmpty() ? "external-" : "partner-" + partner + "-") + name;
  }

  /** The client settings every producer, consumer and admin client here starts from. */
  Properties kafka(String clientId) {
    Properties props = new Properties();
    props.put("bootstrap.servers", brokers);
    props.put("client.id", clientId);
    boolean tls = !sslCa.isEmpty();
    if (!username.isEmpty()) {
      props.put("security.protocol", tls ? "SASL_SSL" : "SASL_PLAINTEXT");
      props.put("sasl.mechanism", "SCRAM-SHA-512");
      props.put("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
          + username + "\" password=\"" + password + "\";");
    } else if (tls) {
      props.put("security.protocol", "SSL");
    }
    if (tls) {
      props.put("ssl.truststore.type", "PEM");
      props.put("ssl.truststore.location", sslCa);
    }
    return props;
  }
}
