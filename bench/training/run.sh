#!/usr/bin/env bash
# Training benchmark: samples/s of the manual's MNIST PyTorchTrial under
# Volador's TrialController against the same model, optimizer and batches in
# a plain PyTorch loop, interleaved round by round (README.md here); then the
# same trial as a 1-slot experiment on a real local cluster, interleaved round
# by round with the plain loop in a process of its own.
#
#   bench/training/run.sh [--rounds 15] [--batch-sizes 32,128] [--samples 512]
#                         [--threads 1] [--cluster-rounds 5] [--build-dir DIR]
#                         [--no-build] [--no-cluster] [--no-in-process] [--out FILE]
#
# Needs /usr/bin/python3 with python3-torch, python3-numpy, python3-sklearn
# (installed with apt-get when missing, as root). Uses CUDA with AMP when torch
# sees a GPU. The measurements run in their own session with autogroup nice
# -19 (when root), so other work on the machine disturbs them less; both
# variants run under the same conditions.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
source "$root/scripts/common.sh"  # install_packages, run_in_own_session
run_in_own_session "$@"
python=/usr/bin/python3
rounds=15
sizes=32,128
samples=512
threads=1
cluster_rounds=5
build="$root/build-training"
do_build=true
cluster=true
in_process=true
out=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --batch-sizes) sizes=$2; shift 2 ;;
    --samples) samples=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --cluster-rounds) cluster_rounds=$2; shift 2 ;;
    --build-dir) build=$(realpath -m "$2"); shift 2 ;;
    --no-build) do_build=false; shift ;;
    --no-cluster) cluster=false; shift ;;
    --no-in-process) in_process=false; shift ;;
    --out) out=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 1 ;;
  esac
done
out=${out:-$build/training-results.txt}
mkdir -p "$(dirname "$out")"

build_cluster() {
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  local targets=(volador volador-node volador-worker)
  # The Python rank workers' native module exists only where python3-dev and pybind11-dev are.
  # (grep without -q reads the whole list: with -q ninja could die of SIGPIPE, and pipefail would drop the target)
  if ninja -C "$build" -t targets all | grep '^_volador_native:' >/dev/null; then targets+=(_volador_native); fi
  ninja -C "$build" -j2 "${targets[@]}"
}

install_packages python3-torch python3-numpy python3-sklearn
# Built before the priority below, so the build does not take the machine from other work.
if $cluster && $do_build; then build_cluster; fi
: >"$out"
# Every variant, the cluster's workers included (they inherit the node's
# environment), starts its OpenMP pool at the thread count it trains with: a
# worker that sized the pool for all cores and called set_num_threads(1)
# later trained ~20% slower here (its idle OpenMP thread spins on the other core).
export OMP_NUM_THREADS="$threads"
echo -19 >/proc/self/autogroup 2>/dev/null || echo "(not root: running without priority)"
if $in_process; then
  "$python" "$here/bench_training.py" --rounds "$rounds" --batch-sizes "$sizes" --samples "$samples" \
    --threads "$threads" --out "$out"
fi
if $cluster; then
  echo
  echo "## end to end: the same trial as a 1-slot experiment on a local cluster (batch 32)"
  "$python" "$here/end_to_end.py" --bin "$build/bin" --rounds "$cluster_rounds" --batch-size 32 \
    --threads "$threads" --out "$out"
fi
echo 0 >/proc/self/autogroup 2>/dev/null || true
echo "results: $out"
