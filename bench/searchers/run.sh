#!/usr/bin/env bash
# Runs bench_searchers and, when python3-optuna is installed, Optuna's TPE on
# the same functions, budgets and seeds (bench/searchers/optuna_peer.py).
#   bench/searchers/run.sh            # BUILD=build SEEDS=20 BUDGETS=25,50,100
# Extra arguments go to bench_searchers (e.g. --asha-trials 10000).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${BUILD:-$here/../../build}"
seeds="${SEEDS:-20}"
budgets="${BUDGETS:-25,50,100}"
"$build/bin/bench_searchers" --seeds "$seeds" --budgets "$budgets" "$@"
if /usr/bin/python3 -c "import optuna" 2>/dev/null; then
  /usr/bin/python3 "$here/optuna_peer.py" --seeds "$seeds" --budgets "$budgets"
else
  echo "python3-optuna is not installed (apt-get install python3-optuna): skipping the Optuna peer"
fi
