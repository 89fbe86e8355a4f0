#!/bin/sh
# Run once by Patroni on the node that bootstraps the cluster, with a connection string: the
# databases `docker/init-databases.sql` makes on the single server.
set -e
psql "$1" -v ON_ERROR_STOP=1 -f /etc/patroni/init-databases.sql
