#!/usr/bin/env bash
# A local Redis Cluster of Debian's redis-server for the tests and CI: 6 nodes (3 primaries, 3 replicas) on
# 127.0.0.1:7000-7005, data in a temp directory, no persistence. `start` is idempotent (a running cluster whose
# state is ok is kept); `stop` shuts every node down. Prints the seed list for REDIS_CLUSTER_NODES.
set -euo pipefail
BASE_PORT="${REDIS_CLUSTER_BASE_PORT:-7000}"
DIR="${REDIS_CLUSTER_DIR:-/tmp/platform-redis-cluster}"
ports() { for i in 0 1 2 3 4 5; do echo $((BASE_PORT + i)); done; }
seeds() { ports | sed 's/^/127.0.0.1:/' | paste -sd, -; }

case "${1:-start}" in
  start)
    if redis-cli -p "$BASE_PORT" cluster info 2>/dev/null | grep -q '^cluster_state:ok'; then seeds; exit 0; fi
    mkdir -p "$DIR"
    for p in $(ports); do
      redis-cli -p "$p" shutdown nosave >/dev/null 2>&1 || true
      mkdir -p "$DIR/$p" && rm -f "$DIR/$p"/nodes.conf
      # Failover within ~1-2 s of a primary's loss (cluster-node-timeout); replicas may serve while the cluster
      # heals only if asked (READONLY), which the services never do.
      redis-server --port "$p" --bind 127.0.0.1 --daemonize yes --dir "$DIR/$p" --cluster-enabled yes \
        --cluster-config-file nodes.conf --cluster-node-timeout 1000 --save "" --appendonly no \
        --logfile "$DIR/$p/redis.log" --pidfile "$DIR/$p/redis.pid"
    done
    for p in $(ports); do
      for _ in $(seq 50); do redis-cli -p "$p" ping >/dev/null 2>&1 && break; sleep 0.1; done
    done
    # shellcheck disable=SC2046
    redis-cli --cluster create $(ports | sed 's/^/127.0.0.1:/') --cluster-replicas 1 --cluster-yes >"$DIR/create.log"
    for _ in $(seq 100); do
      ok=1
      for p in $(ports); do redis-cli -p "$p" cluster info | grep -q '^cluster_state:ok' || ok=0; done
      [ "$ok" = 1 ] && break
      sleep 0.1
    done
    seeds
    ;;
  stop)
    for p in $(ports); do redis-cli -p "$p" shutdown nosave >/dev/null 2>&1 || true; done
    ;;
  seeds) seeds ;;
  *) echo "usage: $0 start|stop|seeds" >&2; exit 2 ;;
esac
