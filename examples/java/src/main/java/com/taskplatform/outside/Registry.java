package com.taskplatform.outside;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;

/**
 * The registry's Confluent-compatible API, read with this system's Basic credential, and the
 * Confluent framing of a value: magic byte 0, the schema id (4 bytes, big-endian), the Avro body.
 */
final class Registry {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final Settings settings;
  private final Map<Integer, Schema> byId = new ConcurrentHashMap<>();

  Registry(Settings settings) {
    this.settings = settings;
  }

  record Latest(int id, Schema schema) {}

  Latest latest(String subject) throws IOException, InterruptedException {
    JsonNode answer = get("/subjects/" + URLEncoder.encode(subject, StandardCharsets.UTF_8) + "/versions/latest");
    return new Latest(answer.get("id").asInt(), new Schema.Parser().parse(answer.get("schema").asText()));
  }

  /** The writer's schema of a value: fetched by the id the value carries, once per id. */
  Schema byId(int id) throws IOException, InterruptedException {
    Schema known = byId.get(id);
    if (known != null) return known;
    Schema schema = new Schema.Parser().parse(get("/schemas/ids/" + id).get("schema").asText());
    byId.put(id, schema);
    return schema;
  }

  static byte[] encode(int schemaId, GenericRecord record) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(0);
    out.write(ByteBuffer.allocate(4).putInt(schemaId).array());
    BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
    new GenericDatumWriter<GenericRecord>(record.getSchema()).write(record, encoder);
    encoder.flush();
    return out.toByteArray();
  }

  GenericRecord decode(byte[] value) throws IOException, InterruptedException {
    if (value == null || value.length < 5 || value[0] != 0) throw new IOException("not a Confluent-framed value");
    int id = ByteBuffer.wrap(value, 1, 4).getInt();
    Schema writer = byId(id);
    return new GenericDatumReader<GenericRecord>(writer).read(null, DecoderFactory.get().binaryDecoder(value, 5, value.length - 5, null));
  }

  private JsonNode get(String path) throws IOException, InterruptedException {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(settings.registryUrl + path)).timeout(Duration.ofSeconds(10)).GET();
    if (!settings.registryUser.isEmpty()) {
      String basic = settings.registryUser + ":" + settings.registryPassword;
      request.header("Authorization", "Basic " + Base64.getEncoder().encodeToString(basic.getBytes(StandardCharsets.UTF_8)));
    }
    HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) throw new IOException("registry answered " + response.statusCode() + " to GET " + path + ": " + response.body());
    return JSON.readTree(response.body());
  }
}
