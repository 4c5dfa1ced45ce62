#!/usr/bin/env bash
# Allreduce benchmark: Volador's shm and TCP backends against OpenMPI (vader
# and tcp BTLs) and Gloo (TCP), interleaved round by round, then the medians,
# our ratios to each peer and the targets (README.md here).
#
#   bench/allreduce/run.sh [--rounds 5] [--ranks "2 4"] [--max-bytes 256M]
#                          [--build-dir DIR] [--out FILE]
#
# Installs the peers with apt-get when missing (as root), builds, runs.
# The measurements run in their own session with autogroup nice -19 (when
# root), so that other work on the machine (compiles) disturbs them less;
# every implementation runs under the same conditions.
set -euo pipefail

if [[ -z "${VOLADOR_BENCH_SESSION:-}" ]]; then
  export VOLADOR_BENCH_SESSION=1
  exec setsid --wait "$0" "$@"
fi

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
source "$root/scripts/common.sh"  # install_packages
rounds=5
ranks="2 4"
max_bytes=256M
build="$root/build-allreduce"
out=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --ranks) ranks=$2; shift 2 ;;
    --max-bytes) max_bytes=$2; shift 2 ;;
    --build-dir) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 1 ;;
  esac
done
out=${out:-$build/allreduce-results.txt}

build_all() {
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  ninja -C "$build" -j2 volador-allreduce-bench mpi-allreduce-bench gloo-allreduce-bench
}

bin="$build/bench/allreduce"
# pml ob1 makes OpenMPI use the BTL we name (pml ucx would bypass it).
mpi() {
  local n=$1 btl=$2 impl=$3
  mpirun --allow-run-as-root --oversubscribe -np "$n" --mca pml ob1 --mca btl "$btl" \
    --mca btl_tcp_if_include lo "$bin/mpi-allreduce-bench" "$impl" 8 "$max_bytes"
}

one_round() {
  echo "ROUND $1 load $(cut -d' ' -f1-3 /proc/loadavg)"
  "$bin/volador-allreduce-bench" --limits --limit-rings $ranks
  for n in $ranks; do
    "$bin/volador-allreduce-bench" --backend shm --ranks "$n" --max-bytes "$max_bytes"
    mpi "$n" self,vader openmpi-vader
    "$bin/volador-allreduce-bench" --backend tcp --ranks "$n" --max-bytes "$max_bytes"
    mpi "$n" self,tcp openmpi-tcp
    "$bin/gloo-allreduce-bench" "$n" 8 "$max_bytes"
  done
}

install_packages openmpi-bin libopenmpi-dev libgloo-dev
build_all
: >"$out"
echo -19 >/proc/self/autogroup 2>/dev/null || echo "(not root: running without priority)"
for ((r = 1; r <= rounds; r++)); do
  one_round "$r" | tee -a "$out" | grep -E '^(ROUND|LIMIT|#)' || true
done
echo 0 >/proc/self/autogroup 2>/dev/null || true
python3 "$here/summarize.py" "$out"
