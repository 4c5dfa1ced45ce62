#!/usr/bin/env bash
# Runs bench_searchers and then its Python peers on the same objectives, budgets
# and seeds: Optuna's TPE (optuna_peer.py, python3-optuna) and the skopt-style
# GP anchor (gp_peer.py, python3-sklearn), both with Debian's /usr/bin/python3.
#   bench/searchers/run.sh            # BUILD=build SEEDS=10 BUDGETS=50,100
# Extra arguments go to bench_searchers (e.g. --asha-trials 10000). The peers
# run side by side after it (so they do not disturb its timings); their output
# follows its own.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${BUILD:-$here/../../build}"
seeds="${SEEDS:-10}"
budgets="${BUDGETS:-50,100}"
"$build/bin/bench_searchers" --seeds "$seeds" --budgets "$budgets" "$@"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
peers=()
for peer in optuna_peer gp_peer; do
  module=$([ "$peer" = optuna_peer ] && echo optuna || echo sklearn)
  if /usr/bin/python3 -c "import $module" 2>/dev/null; then
    /usr/bin/python3 "$here/$peer.py" --seeds "$seeds" --budgets "$budgets" >"$out/$peer" 2>&1 &
    peers+=("$peer")
  else
    echo "python3-$module is not installed (apt-get install python3-$module): skipping $peer.py"
  fi
done
wait
for peer in "${peers[@]}"; do cat "$out/$peer"; done
