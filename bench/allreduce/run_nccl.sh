#!/usr/bin/env bash
# The NCCL rows (README.md here, "NCCL"): volador-allreduce-bench --backend
# nccl against nccl-direct-allreduce-bench, interleaved round by round (which
# goes first alternates), all RESULT lines in --out, then summarize.py when it
# lies beside this script.
#
#   run_nccl.sh [--rounds 5] [--ranks 1] [--max-bytes 256M] [--bin-dir DIR] [--out FILE]
#
# Needs only the two binaries (--bin-dir; default: this script's folder when
# they are there, else build/bench/allreduce of the checkout). When libnccl.so.2
# or libcudart.so.13 is not on the loader path, it looks in pip's nvidia
# packages (nvidia/*/lib) and /usr/local/cuda and exports LD_LIBRARY_PATH.
# --ranks may list several counts ("1 2"); each rank needs its own GPU.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
rounds=5
ranks=1
max_bytes=256M
bin_dir=""
out=""
while [[ $# -gt 0 ]]; do  # --rounds N sets rounds=N, --max-bytes S sets max_bytes=S, ...
  case "$1" in
    --rounds | --ranks | --max-bytes | --bin-dir | --out) printf -v "$(tr - _ <<<"${1#--}")" %s "$2"; shift 2 ;;
    *) echo "run_nccl.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
if [[ -z "$bin_dir" ]]; then
  bin_dir="$here"
  [[ -x "$bin_dir/nccl-direct-allreduce-bench" ]] || bin_dir="$here/../../build/bench/allreduce"
fi
ours="$bin_dir/volador-allreduce-bench"
direct="$bin_dir/nccl-direct-allreduce-bench"
out=${out:-nccl-results.txt}

for program in "$ours" "$direct"; do
  if [[ ! -x "$program" ]]; then
    echo "run_nccl.sh: $program is missing (a build with NCCL makes it; --bin-dir names its folder)" >&2
    exit 1
  fi
done

# Folders that may hold NCCL and the CUDA runtime: pip's nvidia packages
# (nvidia/nccl/lib, nvidia/cu13/lib, nvidia/cuda_runtime/lib, ...), then the toolkit.
library_dirs() {
  local package
  for package in $(python3 -c 'import nvidia; print("\n".join(nvidia.__path__))' 2>/dev/null); do
    ls -d "$package"/*/lib 2>/dev/null || true
  done
  echo /usr/local/cuda/lib64
  echo /usr/local/cuda/lib
}

# The libraries `program` needs that the loader does not find.
missing_libraries() { { ldd "$1" 2>/dev/null || true; } | awk '/=> not found/ { print $1 }' | sort -u; }

# Adds to LD_LIBRARY_PATH a folder for each library the binaries miss, or fails naming what stays missing.
find_libraries() {
  local lib dir missing
  for lib in $( (missing_libraries "$ours"; missing_libraries "$direct") | sort -u); do
    for dir in $(library_dirs); do
      [[ -e "$dir/$lib" ]] || continue
      [[ ":${LD_LIBRARY_PATH:-}:" == *":$dir:"* ]] || export LD_LIBRARY_PATH="$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
      break
    done
  done
  missing=$( (missing_libraries "$ours"; missing_libraries "$direct") | sort -u | tr '\n' ' ')
  if [[ -n "$missing" ]]; then
    echo "run_nccl.sh: libraries not found: $missing(searched the loader path, $(library_dirs | tr '\n' ' '))" >&2
    exit 1
  fi
}

# Runs one program's rows for n ranks into $out; stops the run, saying why, when it fails.
run_program() {
  local name=$1 status=0
  shift
  "$@" | tee -a "$out" || status=$?
  if [[ $status -ne 0 ]]; then
    echo "run_nccl.sh: $name failed (exit $status, its reason above); stopping" >&2
    exit 1
  fi
}

one_round() {
  local round=$1 n first
  echo "ROUND $round" | tee -a "$out"
  for n in $ranks; do
    for first in 0 1; do
      if (( (round + first) % 2 == 1 )); then
        run_program volador-nccl "$ours" --backend nccl --ranks "$n" --max-bytes "$max_bytes"
      else
        run_program nccl-direct "$direct" "$n" 8 "$max_bytes"
      fi
    done
  done
}

find_libraries
: >"$out"
[[ -z "${LD_LIBRARY_PATH:-}" ]] || echo "# LD_LIBRARY_PATH=$LD_LIBRARY_PATH" | tee -a "$out"
for ((r = 1; r <= rounds; r++)); do one_round "$r"; done
echo "run_nccl.sh: results in $out"
if [[ -f "$here/summarize.py" ]]; then python3 "$here/summarize.py" "$out"; fi
