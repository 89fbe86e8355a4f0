#!/bin/sh
# Starts one KRaft node (broker and controller) with the platform's security, as `npm run stack:up`
# does: SCRAM-SHA-512 on the client listeners, SASL/PLAIN on the controller, the StandardAuthorizer
# with `admin` as the only super user. Every principal's SCRAM credential is written into the
# metadata log when the storage is formatted (the first start); credentials changed later need a
# fresh data volume.
#
# Reads one password file per principal, kafka-<principal>.password, from SECRETS_DIR (Docker
# mounts secrets under /run/secrets). Listeners come from KAFKA_LISTENERS and
# KAFKA_ADVERTISED_LISTENERS, named INTERNAL, EXTERNAL and CONTROLLER. A node of a cluster
# (docker/compose.cluster.yml) is given its KAFKA_NODE_ID, KAFKA_REPLICATION_FACTOR=3 and the one
# KAFKA_CLUSTER_ID all its nodes share; a write then needs two in-sync copies.
set -eu

KAFKA_BIN=${KAFKA_BIN:-/opt/kafka/bin}
SECRETS_DIR=${SECRETS_DIR:-/run/secrets}
DATA_DIR=${DATA_DIR:-/var/lib/kafka/data}
CONFIG_FILE=${CONFIG_FILE:-/tmp/server.properties}
: "${KAFKA_LISTENERS:?e.g. INTERNAL://:9092,EXTERNAL://:19092,CONTROLLER://:9093}"
: "${KAFKA_ADVERTISED_LISTENERS:?e.g. INTERNAL://kafka:9092,EXTERNAL://127.0.0.1:19092}"
: "${KAFKA_CONTROLLER_QUORUM_VOTERS:?e.g. 1@kafka:9093}"
NODE_ID=${KAFKA_NODE_ID:-1}
REPLICAS=${KAFKA_REPLICATION_FACTOR:-1}
if [ "$REPLICAS" -ge 3 ]; then MIN_IN_SYNC=2; else MIN_IN_SYNC=1; fi

admin_file="$SECRETS_DIR/kafka-admin.password"
[ -r "$admin_file" ] || { echo "start-broker: no readable $admin_file" >&2; exit 2; }
admin_password=$(cat "$admin_file")

umask 077
cat > "$CONFIG_FILE" <<PROPERTIES
process.roles=broker,controller
node.id=$NODE_ID
controller.quorum.voters=$KAFKA_CONTROLLER_QUORUM_VOTERS
controller.listener.names=CONTROLLER
listeners=$KAFKA_LISTENERS
advertised.listeners=$KAFKA_ADVERTISED_LISTENERS
listener.security.protocol.map=CONTROLLER:SASL_PLAINTEXT,INTERNAL:SASL_PLAINTEXT,EXTERNAL:SASL_PLAINTEXT
inter.broker.listener.name=INTERNAL
sasl.enabled.mechanisms=SCRAM-SHA-512
sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512
sasl.mechanism.controller.protocol=PLAIN
listener.name.controller.sasl.enabled.mechanisms=PLAIN
listener.name.controller.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="$admin_password" user_admin="$admin_password";
listener.name.internal.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="$admin_password";
listener.name.external.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="$admin_password";
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
super.users=User:admin
allow.everyone.if.no.acl.found=false
log.dirs=$DATA_DIR
num.partitions=3
auto.create.topics.enable=false
default.replication.factor=$REPLICAS
min.insync.replicas=$MIN_IN_SYNC
unclean.leader.election.enable=false
replica.lag.time.max.ms=10000
offsets.topic.replication.factor=$REPLICAS
transaction.state.log.replication.factor=$REPLICAS
transaction.state.log.min.isr=$MIN_IN_SYNC
share.coordinator.state.topic.replication.factor=$REPLICAS
share.coordinator.state.topic.min.isr=$MIN_IN_SYNC
group.initial.rebalance.delay.ms=0
PROPERTIES

if [ ! -f "$DATA_DIR/meta.properties" ]; then
  set --
  for file in "$SECRETS_DIR"/kafka-*.password; do
    principal=$(basename "$file" .password)
    principal=${principal#kafka-}
    set -- "$@" --add-scram "SCRAM-SHA-512=[name=$principal,password=$(cat "$file")]"
  done
  cluster_id=${KAFKA_CLUSTER_ID:-$("$KAFKA_BIN/kafka-storage.sh" random-uuid)}
  "$KAFKA_BIN/kafka-storage.sh" format -t "$cluster_id" -c "$CONFIG_FILE" "$@"
fi
exec "$KAFKA_BIN/kafka-server-start.sh" "$CONFIG_FILE"
