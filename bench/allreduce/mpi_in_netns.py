#!/usr/bin/env python3
"""mpi_in_netns.py PROGRAM [ARGS...]

mpirun's program for ranks across namespaces: runs PROGRAM as rank
$OMPI_COMM_WORLD_RANK inside network namespace number RANK of the words of
$VOLADOR_XNS (`ip netns exec`, which execs: the rank keeps this pid). mpirun
serves PMIx only on 127.0.0.1 of its own (root) namespace, which a rank in
another namespace cannot reach, so a relay opens 127.0.0.1:PORT inside the
rank's namespace and forwards each connection to the root namespace's
127.0.0.1:PORT. Only PMIx's control traffic takes the relay; MPI's own TCP
traffic goes over the namespace's eth0. The relay dies with the rank.
"""
import ctypes
import os
import re
import signal
import socket
import sys
import threading

CLONE_NEWNET = 0x40000000
PR_SET_PDEATHSIG = 1
libc = ctypes.CDLL(None, use_errno=True)


def setns(fd):
    if libc.setns(fd, CLONE_NEWNET) != 0:
        raise OSError(ctypes.get_errno(), "setns")


def listen_in(namespace, port):
    """A socket listening on 127.0.0.1:port inside `namespace`; this process stays where it was."""
    home = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    target = os.open(f"/var/run/netns/{namespace}", os.O_RDONLY)
    try:
        setns(target)
        server = socket.create_server(("127.0.0.1", port))
    finally:
        setns(home)
        os.close(home)
        os.close(target)
    return server


def pipe(src, dst):
    """Copies src to dst until src closes, then half-closes dst."""
    try:
        while data := src.recv(1 << 16):
            dst.sendall(data)
        dst.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def relay(server, port):
    """Forwards every connection accepted on `server` to 127.0.0.1:port here (forever)."""
    while True:
        inner, _ = server.accept()
        outer = socket.create_connection(("127.0.0.1", port))
        threading.Thread(target=pipe, args=(inner, outer), daemon=True).start()
        threading.Thread(target=pipe, args=(outer, inner), daemon=True).start()


def serve_until_parent_dies(servers, parent):
    """The relay process: forwards every server's connections until `parent` (the rank) exits."""
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(0)
    threads = [threading.Thread(target=relay, args=s, daemon=True) for s in servers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    os._exit(0)


def main():
    rank = int(os.environ["OMPI_COMM_WORLD_RANK"])
    namespace = os.environ["VOLADOR_XNS"].split()[rank]
    uris = " ".join(v for k, v in os.environ.items() if k.startswith("PMIX_SERVER_URI"))
    ports = sorted({int(p) for p in re.findall(r"tcp4://127\.0\.0\.1:(\d+)", uris)})
    if not ports:
        sys.exit(f"mpi_in_netns.py: no tcp4://127.0.0.1 PMIx server in $PMIX_SERVER_URI*: {uris!r}")
    servers = [(listen_in(namespace, p), p) for p in ports]
    parent = os.getpid()
    if os.fork() == 0:
        serve_until_parent_dies(servers, parent)
    for server, _ in servers:
        server.close()
    os.execvp("ip", ["ip", "netns", "exec", namespace] + sys.argv[1:])


if __name__ == "__main__":
    main()
