#!/usr/bin/env bash
# Control-plane benchmark (README.md here; issue 19, item 1): trial throughput
# of trivial searches, metric ingestion and query latency of a master, each
# beside its peers (Optuna 3.1 in memory and with SQLite, xargs -P2, batched
# SQLite inserts) in the same run; --loaded repeats each section beside busy
# loops. Prints a table per section and one `RESULT {json}` line per row (also
# in --out).
#
#   bench/control_plane/run.sh [--build-dir DIR] [--out FILE] [--quick] [--loaded]
#                              [--sections throughput,ingestion,queries] [driver options...]
#
# Builds nothing: DIR (default /work/main/build, else this checkout's build)
# must hold bin/volador, bin/volador-node, bin/volador-worker and
# bin/volador-bench-seed (`ninja -C DIR volador volador-node volador-worker
# volador-bench-seed`). Other options go to bench_control_plane.py (--help).
# Runs in its own session with autogroup nice -19 when root, so that other
# work on a shared machine disturbs it less (the loaded rows at nice 0: see
# CpuLoad in bench_control_plane.py).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
source "$root/scripts/common.sh"  # run_in_own_session
run_in_own_session "$@"
build_dir=/work/main/build
[[ -d "$build_dir" ]] || build_dir="$root/build"
out=""
driver_args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build-dir) build_dir=$(realpath -m "$2"); shift 2 ;;
    --out) out=$(realpath -m "$2"); shift 2 ;;
    *) driver_args+=("$1"); shift ;;
  esac
done
out=${out:-$build_dir/control-plane-bench-results.txt}
for needed in volador volador-node volador-worker volador-bench-seed; do
  [[ -x "$build_dir/bin/$needed" ]] || {
    echo "missing $build_dir/bin/$needed: build it (ninja -C $build_dir volador volador-node volador-worker volador-bench-seed)" >&2
    exit 1
  }
done
echo -19 >/proc/self/autogroup 2>/dev/null || echo "(not root: running without autogroup priority)"
echo "# commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown); build $build_dir"
/usr/bin/python3 "$here/bench_control_plane.py" --bin "$build_dir/bin" "${driver_args[@]}" | tee "$out"
echo "results: $out"
