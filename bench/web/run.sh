#!/usr/bin/env bash
# Web benchmark (README.md here): an experiment of --trials trials x --points
# validation reports written into a fresh master's journal
# (volador-bench-seed), served by `volador-node up`; then
#   1. pages: its experiment page (every trial's learning curve drawn) and the
#      experiment list, loaded --loads times each in headless Chromium;
#   2. api: a real search (examples/native_mlp, --search-trials trials on
#      --slots CPU slots) is started on the same cluster, and wrk loads small
#      authenticated routes for --wrk-seconds each while it runs.
# Prints a table per part and one `RESULT {json}` line per row (also in --out).
#
#   bench/web/run.sh [--trials 1000] [--points 1000] [--loads 7] [--wrk-seconds 15]
#                    [--wrk-connections 16] [--search-trials 2000] [--slots 2]
#                    [--build-dir DIR] [--no-build] [--out FILE] [--keep]
#
# Installs wrk and chromium with apt-get when missing (as root), builds
# (scripts/common.sh build_volador, in --build-dir, default build), runs in
# its own session. --keep leaves the data folder (its path is printed).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
source "$root/scripts/common.sh"  # install_packages, build_volador, run_in_own_session
run_in_own_session "$@"
trials=1000
points=1000
loads=7
wrk_seconds=15
wrk_connections=16
search_trials=2000
slots=2
do_build=true
keep=false
out=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --trials) trials=$2; shift 2 ;;
    --points) points=$2; shift 2 ;;
    --loads) loads=$2; shift 2 ;;
    --wrk-seconds) wrk_seconds=$2; shift 2 ;;
    --wrk-connections) wrk_connections=$2; shift 2 ;;
    --search-trials) search_trials=$2; shift 2 ;;
    --slots) slots=$2; shift 2 ;;
    --build-dir) BUILD_DIR=$(realpath -m "$2"); shift 2 ;;
    --no-build) do_build=false; shift ;;
    --out) out=$(realpath -m "$2"); shift 2 ;;
    --keep) keep=true; shift ;;
    *) echo "unknown option $1" >&2; exit 1 ;;
  esac
done
out=${out:-$BUILD_DIR/web-bench-results.txt}
bin="$BUILD_DIR/bin"
web_dist="$BUILD_DIR/web/dist"

install_packages wrk chromium
if $do_build; then build_volador; fi
for needed in "$bin/volador-bench-seed" "$bin/volador-node" "$bin/volador" "$web_dist/index.html"; do
  [[ -e "$needed" ]] || { echo "missing $needed (build first, or drop --no-build)" >&2; exit 1; }
done

data=$(mktemp -d /tmp/volador-web-bench-XXXXXX)
node_pid=""
stop_cluster() {
  if [[ -n "$node_pid" ]] && kill -0 "$node_pid" 2>/dev/null; then
    kill -TERM "$node_pid"
    wait "$node_pid" || true
  fi
  node_pid=""
  if $keep; then echo "data folder kept: $data"; else rm -rf "$data"; fi
}
trap stop_cluster EXIT
trap 'exit 130' INT TERM HUP

# Waits up to 60 s for file $1 to be written; prints its content.
wait_for_file() {
  local i
  for ((i = 0; i < 600; i++)); do
    if [[ -s "$1" ]]; then cat "$1"; return 0; fi
    kill -0 "$node_pid" 2>/dev/null || { echo "volador-node exited (see $data/node.log)" >&2; return 1; }
    sleep 0.1
  done
  echo "volador-node did not write $1 within 60 s" >&2
  return 1
}

json_field() { python3 -c "import json, sys; print(json.load(sys.stdin)$1)"; }

echo "seeding $trials trials x $points validation reports into $data/journal"
seed_started=$(date +%s.%N)
experiment=$("$bin/volador-bench-seed" "$data" "$trials" "$points")
echo "# seeded experiment $experiment in $(python3 -c "print(round($(date +%s.%N) - $seed_started, 1))") s"

password=$(od -An -N18 -tx1 /dev/urandom | tr -d ' \n')
VOLADOR_ADMIN_PASSWORD=$password "$bin/volador-node" up --data "$data" --listen 127.0.0.1:0 \
  --http-listen 127.0.0.1:0 --slots "$slots" --slot-type cpu --web-dir "$web_dist" >"$data/node.log" 2>&1 &
node_pid=$!
url=$(wait_for_file "$data/http.addr" | sed 's|/*$||')
master=$(wait_for_file "$data/master.addr")
echo "# cluster: $url (master $master), $slots CPU slots; machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
: >"$out"

node "$here/bench_web.mjs" pages --url "$url" --password "$password" --experiment "$experiment" \
  --trials "$trials" --loads "$loads" --screenshots "$BUILD_DIR/web-bench-screenshots" | tee -a "$out"

token=$(curl -sf -X POST -H 'Content-Type: application/json' \
  -d "{\"username\":\"admin\",\"password\":\"$password\"}" "$url/api/v1/auth/login" | json_field '["token"]')
search_config="$data/search.yaml"
sed -e "s/^name: .*/name: web-bench-search/" -e "s/^  max_trials: .*/  max_trials: $search_trials/" \
  -e "s/^  max_concurrent_trials: .*/  max_concurrent_trials: $slots/" \
  "$root/examples/native_mlp/distributed.yaml" >"$search_config"
search=$(VOLADOR_MASTER=$master VOLADOR_BUNDLE="$data/tls/admin.bundle" VOLADOR_TOKEN=$token \
  "$bin/volador" experiment create "$search_config" "$root/examples/native_mlp" --json | json_field '["id"]')
trial=""
for ((i = 0; i < 600; i++)); do
  trial=$(curl -sf -H "Authorization: Bearer $token" "$url/api/v1/experiments/$search/trials" |
    python3 -c "import json, sys; t = json.load(sys.stdin)['trials']; print(t[0]['id'] if t else '')" || true)
  [[ -z "$trial" ]] || break
  sleep 0.1
done
[[ -n "$trial" ]] || { echo "the search $search started no trial within 60 s (see $data/node.log)" >&2; exit 1; }
echo "# search: experiment $search (examples/native_mlp, max_trials $search_trials), first trial $trial"

node "$here/bench_web.mjs" api --url "$url" --password "$password" --search "$search" --trial "$trial" \
  --wrk-seconds "$wrk_seconds" --wrk-connections "$wrk_connections" | tee -a "$out"
echo "results: $out"
