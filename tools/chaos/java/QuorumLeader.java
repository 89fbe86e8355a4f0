import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.QuorumInfo;

/**
 * Prints the metadata quorum's leader (the active controller) as one broker reports it through the
 * Admin API's DescribeQuorum, which kafkajs does not speak. Run as a source file (java QuorumLeader.java
 * <bootstrap>) with Kafka's libs on the class path; the admin's SCRAM password comes in KAFKA_ADMIN_PASSWORD.
 */
public class QuorumLeader {
  public static void main(String[] args) throws Exception {
    Properties props = new Properties();
    props.put("bootstrap.servers", args[0]);
    props.put("security.protocol", "SASL_PLAINTEXT");
    props.put("sasl.mechanism", "SCRAM-SHA-512");
    props.put("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"admin\" password=\"" + System.getenv("KAFKA_ADMIN_PASSWORD") + "\";");
    props.put("request.timeout.ms", "4000");
    props.put("default.api.timeout.ms", "6000");
    try (Admin admin = Admin.create(props)) {
      QuorumInfo quorum = admin.describeMetadataQuorum().quorumInfo().get();
      System.out.println(quorum.leaderId() + " " + quorum.leaderEpoch());
    }
  }
}
