"""Two builds' trial throughput, row by row, alternating in one session.

    /usr/bin/python3 bench/control_plane/ab_builds.py --before BIN_A --after BIN_B [--rounds 2] [--trials 1000]
                                                      [--slots 2,8] [--trial command|native] [--peer]

Runs bench_control_plane's `volador command` search (`/bin/echo loss=1`,
max_concurrent_trials 4 x slots), or with `--trial native` its `volador
native` search (examples/native_mlp, 1 record, 1 batch), on each of `--slots` with each build's bin
folder in turn, `--rounds` times, and prints trials/s and CPU per trial
(master, agent, warm workers) for each run, then each build's medians.
Alternating keeps the machine's drifting load out of the comparison; odd
rounds run the second build first, since a row runs slower right after
another (ext4 without a journal scans the inodes the previous row's
cleanup freed for a few minutes). With `--peer`, each round ends with Optuna in
memory (n_jobs=2, a subprocess per trial, as bench_control_plane.py runs it)
and prints each row's ratio to it in that round; the other peers are left
out (bench_control_plane.py runs them).
"""
import argparse
import os
import statistics
import sys
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_control_plane as bench  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="the first build's bin folder")
    parser.add_argument("--after", required=True, help="the second build's bin folder")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--trials", type=int, default=1000)
    parser.add_argument("--slots", default="2,8", help="comma-separated slot counts, one row each")
    parser.add_argument("--trial", choices=("command", "native"), default="command",
                        help="which of bench_control_plane's trials the search runs")
    parser.add_argument("--peer", action="store_true", help="end each round with Optuna in memory, and print ratios")
    args = parser.parse_args()
    if args.peer and bench.optuna_missing():
        parser.error(f"--peer: {bench.optuna_missing()}")
    make_config = bench.echo_config if args.trial == "command" else bench.native_config
    builds = (("before", args.before), ("after", args.after))
    rows = []
    for round_number in range(args.rounds):
        rates = {}
        for name, binaries in builds if round_number % 2 == 0 else reversed(builds):
            for slots in (int(count) for count in args.slots.split(",")):
                row_args = types.SimpleNamespace(bin=binaries, keep=False, row_timeout=150, trials=args.trials,
                                                 block=max(args.trials // 5, 1))
                row = bench.volador_search_row(row_args, name, slots, make_config(args.trials, 4 * slots), "ab")
                rates[(name, slots)] = row["trials_per_s"]
                rows.append((name, slots, row))
                print(f"round {round_number} {name:6} {slots} slots: {row['trials_per_s']:7.1f} trials/s, "
                      f"CPU {row['cpu_ms_per_trial']} ms/trial (master {row['master_cpu_ms_per_trial']}, "
                      f"agent {row['agent_cpu_ms_per_trial']}, workers {row['workers_cpu_ms_per_trial']}), load {row['load_avg_end']}", flush=True)
        if args.peer:
            print_peer_round(round_number, args.trials, rates)
    print_medians(rows)


def print_medians(rows):
    """Each build's median trials/s and CPU ms per trial (and its master's, agent's and workers'), slot count by slot
    count, and after's rate over before's."""
    medians = {}
    for key in sorted({(name, slots) for name, slots, _ in rows}, key=lambda k: (k[1], k[0] != "before")):
        runs = [row for name, slots, row in rows if (name, slots) == key]
        rate = statistics.median(row["trials_per_s"] for row in runs)
        cpu = {part: statistics.median(row[f"{part}_ms_per_trial"] for row in runs)
               for part in ("cpu", "master_cpu", "agent_cpu", "workers_cpu")}
        medians[key] = rate
        print(f"median {key[0]:6} {key[1]} slots: {rate:7.1f} trials/s, CPU {cpu['cpu']:.2f} ms/trial (master "
              f"{cpu['master_cpu']:.2f}, agent {cpu['agent_cpu']:.2f}, workers {cpu['workers_cpu']:.2f}) over {len(runs)} runs",
              flush=True)
    for slots in sorted({slots for _, slots in medians}):
        if ("before", slots) in medians and medians[("before", slots)] > 0:
            print(f"median after / before, {slots} slots: {medians[('after', slots)] / medians[('before', slots)]:.2f}")


def print_peer_round(round_number, trials, rates):
    """Runs Optuna in memory once and prints its rate and each of the round's RATES {(build, slots): trials/s} against it."""
    peer = bench.run_peer(["optuna", "--trials", str(trials), "--jobs", "2"], 300)
    if not peer:
        print(f"round {round_number} optuna in memory: failed (see above)", flush=True)
        return
    peer_rate = peer["trials"] / peer["seconds"]
    ratios = ", ".join(f"{name} {slots} slots {bench.ratio_text(rate, peer_rate)}" for (name, slots), rate in rates.items())
    print(f"round {round_number} optuna in memory: {peer_rate:7.1f} trials/s; {ratios}", flush=True)


if __name__ == "__main__":
    main()
