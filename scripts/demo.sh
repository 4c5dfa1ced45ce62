#!/usr/bin/env bash
# Starts a single-host Volador cluster (master + agent in one process, data in
# ./volador-demo), prints the web UI's address and login, submits the example
# experiment, follows it to the end, prints the best trial and stops the
# cluster. --keep leaves it running (to watch it in the browser).
source "$(dirname "$0")/common.sh"

keep=false
[ "${1:-}" = "--keep" ] && keep=true

install_missing_packages
build_volador

data_dir="$VOLADOR_ROOT/volador-demo"
mkdir -p "$data_dir"
rm -f "$data_dir/master.addr" "$data_dir/http.addr"
"$BUILD_DIR/bin/volador-node" up --data "$data_dir" --listen 127.0.0.1:0 > "$data_dir/node.log" 2>&1 &
node_pid=$!
stop_cluster() { kill "$node_pid" 2>/dev/null && wait "$node_pid" 2>/dev/null || true; }
$keep || trap stop_cluster EXIT

for _ in $(seq 100); do
  [ -s "$data_dir/master.addr" ] && break
  kill -0 "$node_pid" 2>/dev/null || { cat "$data_dir/node.log"; exit 1; }
  sleep 0.1
done
export VOLADOR_MASTER="$(cat "$data_dir/master.addr")"
# The client's certificate: the cluster's CA signed it on the master's first start.
export VOLADOR_BUNDLE="$data_dir/tls/admin.bundle"
echo "cluster up: master at $VOLADOR_MASTER, mutual TLS (log: $data_dir/node.log)"
# The first admin's password: the master made a random one on its first start
# (DATA/admin.password); the client logs in with it once (~/.volador/tokens.json).
admin_password="${VOLADOR_ADMIN_PASSWORD:-$(cat "$data_dir/admin.password")}"
"$BUILD_DIR/bin/volador" user login admin --password-stdin <<< "$admin_password"
web_url="$(cat "$data_dir/http.addr")"
echo "web UI: $web_url  (log in as admin, password: $admin_password)"

example="$VOLADOR_ROOT/examples/native_mlp"
status=0
"$BUILD_DIR/bin/volador" experiment create "$example/distributed.yaml" "$example" --follow || status=$?
"$BUILD_DIR/bin/volador" experiment list
if $keep; then
  echo "cluster left running (pid $node_pid): export VOLADOR_MASTER=$VOLADOR_MASTER VOLADOR_BUNDLE=$VOLADOR_BUNDLE"
  echo "web UI: $web_url  (log in as admin, password: $admin_password)"
fi
exit $status
