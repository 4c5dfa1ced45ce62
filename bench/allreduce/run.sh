#!/usr/bin/env bash
# Allreduce benchmark: Volador's shm and TCP backends against OpenMPI (vader
# and tcp BTLs) and Gloo (TCP), interleaved round by round, then the medians,
# our ratios to each peer and the targets (README.md here). As root with
# `ip netns`, also the TCP backend and OpenMPI's TCP BTL across simulated hosts
# (one network namespace per rank, the layout of tests/netns/netns_lab.hpp),
# with the limit of that veth path; the namespaces are removed on exit.
#
#   bench/allreduce/run.sh [--rounds 5] [--ranks "2 4"] [--max-bytes 256M]
#                          [--build-dir DIR] [--out FILE]
#
# Installs the peers with apt-get when missing (as root), builds, runs.
# The measurements run in their own session with autogroup nice -19 (when
# root), so that other work on the machine (compiles) disturbs them less;
# every implementation runs under the same conditions.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
source "$root/scripts/common.sh"  # install_packages, run_in_own_session
run_in_own_session "$@"
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
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVOLADOR_BENCH_PEERS=ON >/dev/null
  ninja -C "$build" -j2 volador-allreduce-bench mpi-allreduce-bench gloo-allreduce-bench
}

bin="$build/bench/allreduce"
# pml ob1 makes OpenMPI use the BTL we name (pml ucx would bypass it).
mpi() {
  local n=$1 btl=$2 impl=$3
  mpirun --allow-run-as-root --oversubscribe -np "$n" --mca pml ob1 --mca btl "$btl" \
    --mca btl_tcp_if_include lo "$bin/mpi-allreduce-bench" "$impl" 8 "$max_bytes"
}

# Simulated hosts for the cross-namespace rows (tests/netns/netns_lab.hpp's
# layout): host i is namespace $xns_prefix-h$i with lo up and eth0 at
# 10.77.0.(i+1)/24, a veth whose peer h$i is a port of bridge br0 in namespace
# $xns_prefix-sw. Nothing is created in the root namespace.
xns_prefix="vl-$$-$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')"
xns_names=()  # namespaces made, removed by xns_down
xns_hosts=()  # host namespaces, rank order

# Adds namespace $1 with lo up.
xns_add() { ip netns add "$1" && xns_names+=("$1") && ip -n "$1" link set lo up; }

# Builds the switch and $1 hosts; status 1 at the first failed step.
xns_up() {
  local sw="$xns_prefix-sw" i ns
  xns_add "$sw" && ip -n "$sw" link add br0 type bridge stp_state 0 && ip -n "$sw" link set br0 up || return 1
  for ((i = 0; i < $1; i++)); do
    ns="$xns_prefix-h$i"
    xns_add "$ns" && xns_hosts+=("$ns") &&
      ip -n "$ns" link add eth0 type veth peer name "h$i" netns "$sw" &&
      ip -n "$sw" link set "h$i" master br0 && ip -n "$sw" link set "h$i" up &&
      ip -n "$ns" addr add "10.77.0.$((i + 1))/24" dev eth0 && ip -n "$ns" link set eth0 up || return 1
  done
}

# Kills the processes left inside namespace $1 (for up to ~2 s), deletes it.
xns_remove() {
  local round pids
  for ((round = 0; round < 200; round++)); do
    pids=$(ip netns pids "$1" 2>/dev/null) && [[ -n "$pids" ]] || break
    kill -9 $pids 2>/dev/null || true
    sleep 0.01
  done
  ip netns delete "$1" 2>/dev/null || true
}

# Removes every namespace made here (runs on exit).
xns_down() {
  local ns
  for ns in ${xns_names[@]+"${xns_names[@]}"}; do xns_remove "$ns"; done
  xns_names=() xns_hosts=()
}

# Removes lab namespaces "vl-<pid>-..." whose creator is gone (a crashed run),
# as NetnsLab::remove_stale does.
xns_remove_stale() {
  local ns pid
  for ns in $(ip netns list | cut -d' ' -f1); do
    [[ $ns =~ ^vl-([0-9]+)- ]] || continue
    pid=${BASH_REMATCH[1]}
    [[ -d /proc/$pid ]] || xns_remove "$ns"
  done
}

# Sets up one host per rank of the largest count in --ranks, or prints why the
# cross-namespace rows are skipped (a SKIP line, also in the output file).
xns_setup() {
  local most=0 n why=""
  for n in $ranks; do ((n > most)) && most=$n; done
  if [[ $(id -u) -ne 0 ]]; then why="not root"
  elif ! ip netns list >/dev/null 2>&1; then why="'ip netns' is unavailable"
  else
    xns_remove_stale
    xns_up "$most" || { xns_down; why="could not build $most namespaces"; }
  fi
  [[ -z "$why" ]] ||
    echo "SKIP cross-namespace rows (volador-tcp-xns, openmpi-tcp-xns, tcp_xns_ring limits): $why" | tee -a "$out"
}

# --netns/--addresses of volador-allreduce-bench for the hosts.
xns_args() {
  local IFS=, i addresses=()
  for ((i = 0; i < ${#xns_hosts[@]}; i++)); do addresses+=("10.77.0.$((i + 1))"); done
  echo "--netns ${xns_hosts[*]} --addresses ${addresses[*]}"
}

# OpenMPI's TCP BTL over the hosts' eth0: mpirun (here) starts each rank
# through mpi_in_netns.py, which runs it inside its host's namespace.
mpi_xns() {
  local n=$1
  VOLADOR_XNS="${xns_hosts[*]}" mpirun --allow-run-as-root --oversubscribe -np "$n" -x VOLADOR_XNS \
    --mca pml ob1 --mca btl self,tcp --mca btl_tcp_if_include eth0 \
    "$here/mpi_in_netns.py" "$bin/mpi-allreduce-bench" openmpi-tcp-xns 8 "$max_bytes"
}

one_round() {
  echo "ROUND $1 load $(cut -d' ' -f1-3 /proc/loadavg)"
  "$bin/volador-allreduce-bench" --limits --limit-rings $ranks
  [[ ${#xns_hosts[@]} -eq 0 ]] || "$bin/volador-allreduce-bench" --limits --limit-rings $ranks $(xns_args)
  for n in $ranks; do
    "$bin/volador-allreduce-bench" --backend shm --ranks "$n" --max-bytes "$max_bytes"
    mpi "$n" self,vader openmpi-vader
    "$bin/volador-allreduce-bench" --backend tcp --ranks "$n" --max-bytes "$max_bytes"
    mpi "$n" self,tcp openmpi-tcp
    "$bin/gloo-allreduce-bench" "$n" 8 "$max_bytes"
    [[ ${#xns_hosts[@]} -gt 0 ]] || continue
    "$bin/volador-allreduce-bench" --backend tcp --ranks "$n" --max-bytes "$max_bytes" $(xns_args)
    mpi_xns "$n" || echo "# openmpi-tcp-xns, $n ranks: FAILED (exit $?)"
  done
}

install_packages openmpi-bin libopenmpi-dev libgloo-dev
build_all
: >"$out"
trap xns_down EXIT
trap 'exit 130' INT TERM HUP
xns_setup
echo -19 >/proc/self/autogroup 2>/dev/null || echo "(not root: running without priority)"
for ((r = 1; r <= rounds; r++)); do
  one_round "$r" | tee -a "$out" | grep -E '^(ROUND|LIMIT|#)' || true
done
xns_down
echo 0 >/proc/self/autogroup 2>/dev/null || true
python3 "$here/summarize.py" "$out"
