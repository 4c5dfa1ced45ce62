"""The messages between the master and its agent and warm workers per trial.

    /usr/bin/python3 bench/control_plane/message_trace/trace_messages.py --bin BUILD/bin
                     [--trial command|native] [--trials 12] [--sequence]

Runs bench_control_plane's search (`/bin/echo loss=1`, or `--trial native`)
with 1 slot and 1 trial at a time on a fresh cluster (cluster.py) whose
nodes run with ssl_trace.c preloaded (built here with gcc): every TLS
read and write in plaintext, of which the master's are read. It cuts the master's streams into
CAF BASP frames and names each (a message's atom, `answer` for a response,
the proxy announcements and ends CAF sends on its own) and its peer (the
agent: the connection that registered; a worker: one that said hello).
Prints the messages per trial, counted between the third trial's launch
and the last one's (the warm worker's steady state), by direction and
kind, and with --sequence every frame of those trials. A tracing aid: the
preloaded master is slower, so no figure but the counts means anything.
"""
import argparse
import collections
import glob
import json
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import bench_control_plane as bench  # noqa: E402
from cluster import Cluster  # noqa: E402

ATOMS = ("register launch kill exited log flush adopt idle workdisk hello workload shutdown report rejoin "
         "complete attach detach").split()
OPERATIONS = {0: "server_handshake", 1: "client_handshake", 2: "direct", 3: "routed", 4: "proxy_announce",
              5: "proxy_end", 6: "heartbeat"}
HEADER = struct.Struct(">BBBBIQQQ")  # CAF 0.17 BASP: operation, 2 padding, flags, payload length, data, source, dest
RESPONSE_FLAG = 1 << 63  # caf::message_id: a response (0x9... answers the request 0x1...)


def atom_value(name):
    """caf::atom(NAME) as CAF 0.17 encodes it: 6 bits a character after a 0xF start."""
    table = " 0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz"
    value = 0xF
    for char in name:
        value = ((value << 6) | table.index(char)) & 0xFFFFFFFFFFFFFFFF
    return value


ATOM_BYTES = {struct.pack(">Q", atom_value(name)): name for name in ATOMS}


def frame_name(operation, message_id, payload):
    if operation not in (2, 3):
        return OPERATIONS.get(operation, str(operation))
    if message_id & RESPONSE_FLAG:
        return "answer"
    for encoded, name in ATOM_BYTES.items():
        if encoded in payload:
            return name
    return "message"


def build_shim(folder):
    shim = os.path.join(folder, "ssl_trace.so")
    subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-o", shim, os.path.join(HERE, "ssl_trace.c"), "-ldl", "-lssl"],
                   check=True)
    return shim


def run_search(bin_dir, trial, trials, trace_dir, shim):
    """Runs the search on a cluster whose nodes preload SHIM; the master's pid and port."""
    make_config = bench.echo_config if trial == "command" else bench.native_config
    os.environ["LD_PRELOAD"], os.environ["SSL_TRACE_DIR"] = shim, trace_dir
    with Cluster(bin_dir, 1) as cluster:
        del os.environ["LD_PRELOAD"]  # the nodes have it; the client has not
        project = bench.write_project(os.path.join(cluster.data, "project"), make_config(trials, 1))
        experiment, _ = bench.submit(cluster, project)
        summary, timed_out = bench.wait_until_ended(cluster, experiment, 300)
        if timed_out or summary["state"] != "COMPLETED":
            raise SystemExit(f"the search ended {summary['state']}{' (timed out)' if timed_out else ''}")
        return cluster.master.pid, int(cluster.address.rsplit(":", 1)[1])


def master_frames(trace_dir, master_pid, port):
    """Every BASP frame the master wrote (M->) or read (M<-) on its control-plane port, in time order:
    (time, direction, peer port, name)."""
    frames, streams = [], collections.defaultdict(bytes)
    with open(os.path.join(trace_dir, f"ssl.{master_pid}")) as trace:
        for line in trace:
            kind, time, _, local_port, peer_port, _, data = line.split()
            if int(local_port) != port:
                continue  # the HTTP API's connections
            key = (kind, int(peer_port))
            buffer = streams[key] + bytes.fromhex(data)
            while len(buffer) >= HEADER.size:
                operation, _, _, _, length, message_id, _, _ = HEADER.unpack_from(buffer)
                if len(buffer) < HEADER.size + length:
                    break
                payload = buffer[HEADER.size:HEADER.size + length]
                buffer = buffer[HEADER.size + length:]
                frames.append((float(time), "M->" if kind == "W" else "M<-", int(peer_port),
                               frame_name(operation, message_id, payload)))
            streams[key] = buffer
    return sorted(frames)


def peer_roles(frames):
    roles = {}
    for _, direction, peer, name in frames:
        if direction == "M<-" and name in ("register", "hello"):
            roles.setdefault(peer, "agent" if name == "register" else "worker")
    return roles


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, help="the build's bin folder")
    parser.add_argument("--trial", choices=("command", "native"), default="command")
    parser.add_argument("--trials", type=int, default=12)
    parser.add_argument("--sequence", action="store_true", help="print every frame of the counted trials")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="volador-message-trace-") as folder:
        shim = build_shim(folder)
        master_pid, port = run_search(os.path.abspath(args.bin), args.trial, args.trials, folder, shim)
        frames = master_frames(folder, master_pid, port)
    roles = peer_roles(frames)
    launches = [i for i, frame in enumerate(frames) if frame[3] == "launch"]
    if len(launches) < 4:
        raise SystemExit(f"only {len(launches)} launches traced: run more trials")
    counted, trials = frames[launches[2]:launches[-1]], len(launches) - 3
    per_kind = collections.Counter((direction, roles.get(peer, "client"), name) for _, direction, peer, name in counted)
    print(f"# {args.trial} trials, 1 slot, one at a time: messages per trial over {trials} trials")
    for (direction, role, name), count in sorted(per_kind.items(), key=lambda item: (item[0][1], item[0][0])):
        arrow = f"master -> {role}" if direction == "M->" else f"{role} -> master"
        print(f"{arrow:18} {name:16} {count / trials:5.2f}")
    print(f"{'total':35} {len(counted) / trials:5.2f}")
    if args.sequence:
        start = counted[0][0]
        for time, direction, peer, name in counted:
            print(f"{1000 * (time - start):9.3f} ms  {direction} {roles.get(peer, 'client'):6} {name}")


if __name__ == "__main__":
    main()
