#!/usr/bin/python3
"""The soak test (issue 17): searches under random faults for a while.

A master and an agent run as separate processes. Seeded searches of the
native example are submitted one after another, beside a chatty command
trial (prints as fast as it can) and a disk-filling one (checkpoints onto a
256 KiB tmpfs until it is full, which ends it in ERROR). Meanwhile, every few seconds, one fault at
random: SIGKILL of the master or the agent (then a restart), or SIGSTOP of
either for a few seconds (then SIGCONT). At the end the faults stop, every
experiment is let finish, and:
  - every completed search reports exactly the metrics of the same search run
    once without faults, trial by trial (an ERROR is counted, not compared);
  - no volador-worker of this run is left once the nodes are stopped;
  - the master's and the agent's peak RSS are printed (sampled each second).
Prints a table and one machine-readable line (`SOAK {...}`), exits 1 when a
check fails. Run on demand, as root, from the repository root:
    tests/soak/soak.py --minutes 30 [--build build]
"""

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "native_mlp"

SEARCH = """name: soak-search
entrypoint: native:mlp_classifier
data: {train_records: 2000, validation_records: 500}
hyperparameters:
  global_batch_size: 32
  learning_rate: {type: log, base: 10, minval: -2.5, maxval: -1}
  hidden_units: {type: int, minval: 16, maxval: 48}
records_per_epoch: 2000
scheduling_unit: 20
min_validation_period: {epochs: 1}
min_checkpoint_period: {epochs: 1}
max_restarts: 50
experiment_seed: 11
searcher: {name: random, metric: accuracy, smaller_is_better: false, max_trials: 4,
           max_concurrent_trials: 2, max_length: {epochs: 4}}
"""

CHATTY = """name: soak-chatty
entrypoint: /bin/sh chatty.sh
hyperparameters: {global_batch_size: 32}
searcher: {name: single, metric: accuracy, smaller_is_better: false, max_length: {batches: 10}}
max_restarts: 50
"""
CHATTY_SCRIPT = "head -c 300000000 /dev/zero | tr '\\0' 'x' | fold -w 200\necho\necho accuracy=1\n"

DISK_FILLER = """name: soak-disk-filler
entrypoint: native:mlp_classifier
data: {train_records: 2000, validation_records: 500}
hyperparameters: {global_batch_size: 32, learning_rate: 0.05, hidden_units: 48}
records_per_epoch: 2000
scheduling_unit: 20
min_validation_period: {epochs: 1}
min_checkpoint_period: {batches: 20}
checkpoint_policy: all
checkpoint_storage: {type: shared_fs, host_path: HOST_PATH, save_trial_latest: 1000, save_experiment_best: 1000}
max_restarts: 0
searcher: {name: single, metric: accuracy, smaller_is_better: false, max_length: {epochs: 20}}
"""


class Soak:
    def __init__(self, build: Path, work: Path):
        self.bin = build / "bin"
        self.work = work
        self.data = work / "data"
        self.address = None
        self.master = None
        self.agent = None
        self.log = open(work / "nodes.log", "ab")
        self.peak_rss = {"master": 0, "agent": 0}
        self.faults = []
        self.env = dict(os.environ, HOME=str(work / "home"), VOLADOR_BUNDLE=str(self.data / "tls/admin.bundle"))

    # ---- nodes ---------------------------------------------------------
    def start_master(self):
        (self.data / "master.addr").unlink(missing_ok=True)
        listen = self.address or "127.0.0.1:0"
        self.master = subprocess.Popen([self.bin / "volador-node", "master", "--data", self.data, "--listen", listen,
                                        "--http-listen", "127.0.0.1:0"],  # the next port may be taken by now
                                       stdout=self.log, stderr=self.log)
        wait_for(lambda: (self.data / "master.addr").exists() and (self.data / "master.addr").read_text().strip(),
                 60, "the master's address")
        self.address = (self.data / "master.addr").read_text().strip()
        self.env["VOLADOR_MASTER"] = self.address

    def start_agent(self):
        bundle = self.data / "soak-agent.bundle"
        if not bundle.exists():
            run([self.bin / "volador-node", "certs", "issue", "soak-agent", "--data", self.data, "-o", bundle])
        self.agent = subprocess.Popen([self.bin / "volador-node", "agent", "-m", self.address, "--bundle", bundle,
                                       "--work-dir", self.work / "agent-work", "--slots", "2", "--id", "soak-agent"],
                                      stdout=self.log, stderr=self.log)

    def stop_nodes(self):
        for process in (self.agent, self.master):
            if process and process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(20)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()

    # ---- client --------------------------------------------------------
    def cli(self, *args, stdin=None, check=True):
        result = subprocess.run([self.bin / "volador", *map(str, args)], env=self.env, input=stdin, text=True,
                                capture_output=True, timeout=120)
        if check and result.returncode != 0:
            raise RuntimeError(f"volador {' '.join(map(str, args))}: {result.stderr.strip()}")
        return result

    def cli_json(self, *args):
        for attempt in range(30):  # the master may be down or stopped right now
            result = self.cli(*args, "--json", check=False)
            if result.returncode == 0:
                return json.loads(result.stdout)
            time.sleep(2)
        raise RuntimeError(f"volador {' '.join(map(str, args))}: {result.stderr.strip()}")

    def login(self):
        password = (self.data / "admin.password").read_text().strip()
        self.cli("user", "login", "admin", "--password-stdin", stdin=password + "\n")

    def submit(self, name: str, config: str, files=None) -> int:
        project = self.work / "projects" / f"{name}-{time.monotonic_ns()}"
        project.mkdir(parents=True)
        for file, text in (files or {}).items():
            (project / file).write_text(text)
        if "native:" in config:
            for source in EXAMPLE.iterdir():
                if source.is_file() and source.name != "distributed.yaml":
                    (project / source.name).write_bytes(source.read_bytes())
        (project / "distributed.yaml").write_text(config)
        for attempt in range(30):
            result = self.cli("experiment", "create", project / "distributed.yaml", project, "--json", check=False)
            if result.returncode == 0:
                return json.loads(result.stdout)["id"]
            time.sleep(2)
        raise RuntimeError(f"cannot submit {name}: {result.stderr.strip()}")

    def experiment(self, experiment_id: int):
        return self.cli_json("experiment", "describe", experiment_id)

    def metrics_by_hparams(self, experiment_id: int):
        trials = {}
        for trial in self.experiment(experiment_id)["trials"]:
            detail = self.cli_json("trial", "describe", trial["id"])
            reports = [(m["kind"], m["batches"], m["metrics"]) for m in detail["metrics"]]
            trials[json.dumps(trial["hparams"], sort_keys=True)] = reports
        return trials

    # ---- faults --------------------------------------------------------
    def sample_rss(self):
        for name, process in (("master", self.master), ("agent", self.agent)):
            try:
                status = Path(f"/proc/{process.pid}/status").read_text()
                rss_kib = int(next(l for l in status.splitlines() if l.startswith("VmRSS:")).split()[1])
                self.peak_rss[name] = max(self.peak_rss[name], rss_kib // 1024)
            except (OSError, StopIteration, AttributeError):
                pass

    def one_fault(self, rng: random.Random):
        fault = rng.choice(["kill master", "kill agent", "stop master", "stop agent"])
        self.faults.append(fault)
        target = self.master if fault.endswith("master") else self.agent
        if fault.startswith("kill"):
            target.kill()
            target.wait()
            time.sleep(rng.uniform(0.5, 3))
            if fault.endswith("master"):
                self.start_master()
            else:
                self.start_agent()
        else:
            target.send_signal(signal.SIGSTOP)
            time.sleep(rng.uniform(2, 15))
            target.send_signal(signal.SIGCONT)


def run(argv):
    subprocess.run([str(a) for a in argv], check=True, capture_output=True)


def wait_for(condition, seconds, what):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise RuntimeError(f"timed out waiting for {what}")


def finished(soak: Soak, ids):
    states = {i: soak.experiment(i)["state"] for i in ids}
    return all(state in ("COMPLETED", "ERROR", "CANCELED") for state in states.values()), states


def leaked_workers(work: Path):
    leaked = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                command = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if str(work) in command and "volador-node" not in command:
                leaked.append(f"{proc.name}: {command[:120]}")
    return leaked


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument("--build", type=Path, default=ROOT / "build")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # clean up (finally) when stopped
    work = Path(tempfile.mkdtemp(prefix="volador-soak-"))
    tmpfs = work / "small-disk"
    tmpfs.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", tmpfs], check=True)
    soak = Soak(args.build.resolve(), work)
    try:
        soak.start_master()
        soak.start_agent()
        soak.login()
        print(f"soak: work in {work}, master at {soak.address}", flush=True)

        reference_id = soak.submit("reference", SEARCH)
        wait_for(lambda: finished(soak, [reference_id])[0], 1200, "the reference search")
        reference = soak.metrics_by_hparams(reference_id)

        stop = threading.Event()
        sampler = threading.Thread(target=lambda: [soak.sample_rss() for _ in iter(lambda: stop.wait(1), True)])
        sampler.start()
        searches = [soak.submit("search", SEARCH)]
        others = [soak.submit("chatty", CHATTY, {"chatty.sh": CHATTY_SCRIPT}),
                  soak.submit("disk-filler", DISK_FILLER.replace("HOST_PATH", str(tmpfs)))]
        deadline = time.monotonic() + args.minutes * 60
        while time.monotonic() < deadline:
            time.sleep(rng.uniform(5, 20))
            soak.one_fault(rng)
            if finished(soak, searches[-1:])[0]:
                searches.append(soak.submit("search", SEARCH))
        print(f"soak: {len(soak.faults)} faults injected; letting every experiment finish", flush=True)
        wait_for(lambda: finished(soak, searches + others)[0], 1800, "every experiment to finish")
        stop.set()
        sampler.join()

        _, states = finished(soak, searches + others)
        exact, differing, errors = 0, [], []
        for experiment_id in searches:
            if states[experiment_id] != "COMPLETED":
                errors.append(experiment_id)
            elif soak.metrics_by_hparams(experiment_id) == reference:
                exact += 1
            else:
                differing.append(experiment_id)
        soak.stop_nodes()
        time.sleep(2)
        leaked = leaked_workers(work)
        result = {
            "minutes": args.minutes, "faults": len(soak.faults),
            "faults_by_kind": {k: soak.faults.count(k) for k in sorted(set(soak.faults))},
            "searches": len(searches), "exact": exact, "differing": differing, "errors": errors,
            "chatty": states[others[0]], "disk_filler": states[others[1]],
            "peak_rss_mib": soak.peak_rss, "leaked_processes": leaked,
        }
        print(f"{'searches completed with exact metrics':40} {exact} of {len(searches)}")
        print(f"{'searches differing':40} {differing}")
        print(f"{'searches ending in ERROR':40} {errors}")
        print(f"{'faults':40} {result['faults_by_kind']}")
        print(f"{'chatty / disk-filling trial':40} {result['chatty']} / {result['disk_filler']}")
        print(f"{'peak RSS MiB (master, agent)':40} {soak.peak_rss['master']}, {soak.peak_rss['agent']}")
        print(f"{'leaked processes':40} {len(leaked)}")
        print("SOAK " + json.dumps(result), flush=True)
        return 0 if not differing and not leaked and exact > 0 else 1
    finally:
        soak.stop_nodes()
        subprocess.run(["umount", "-l", tmpfs], check=False)


if __name__ == "__main__":
    sys.exit(main())
