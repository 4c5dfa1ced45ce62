"""A single-host Volador cluster for the control-plane benchmark.

`Cluster` starts `volador-node master` (HTTPS API on a free loopback port,
certificate of the cluster CA) and, when asked for slots, `volador-node agent`
as a separate process, both on a fresh data folder under /tmp; it logs in as
admin and hands out an `Api` (one kept-alive HTTPS connection with the login
token) and the CLI's environment. `stop()` ends both processes and every
process left under the data folder; the folder is removed when the bench ends (remove_at_exit).
"""
import atexit
import http.client
import json
import os
import shutil
import signal
import ssl
import subprocess
import tempfile
import time

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
START_PATIENCE_S = 60
CLIENT_CONNECT_PATIENCE = "30s"  # the client's default, 3 s, is too short for a master on a loaded machine
BUSY_RETRIES = 5  # a 503 is the master's own request timeout (it was too busy to answer in time)


class BenchError(RuntimeError):
    """A step of the benchmark that could not be done; the message says which."""


def process_cpu_s(pid):
    """utime + stime of the process and of its reaped children (/proc/PID/stat), in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return sum(int(v) for v in fields[11:15]) / CLOCK_TICKS


def live_descendants(pid):
    """Pids of every live process under process PID (children, theirs, ...)."""
    out, todo = [], child_pids(pid)
    while todo:
        child = todo.pop()
        out.append(child)
        todo += child_pids(child)
    return out


def tree_cpu_by_pid(pid):
    """{pid: CPU seconds} of the live processes under process PID, each with its reaped children (process_cpu_s)."""
    out = {}
    for child in live_descendants(pid):
        try:
            out[child] = process_cpu_s(child)
        except (FileNotFoundError, ProcessLookupError):  # ended meanwhile: its time went to its parent, if it reaped it
            pass
    return out


def child_pids(pid):
    """The live children of process PID (every thread's list)."""
    out = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                out += [int(c) for c in f.read().split()]
    except (FileNotFoundError, ProcessLookupError):  # the process or a thread ended meanwhile
        pass
    return out


def processes_under(folder):
    """Pids of the processes whose working folder is inside FOLDER."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if os.readlink(f"/proc/{entry}/cwd").startswith(folder):
                out.append(int(entry))
        except OSError:
            pass
    return out


def wait_for_file(path, process, what):
    """The content of PATH once written; fails if PROCESS exits first or after START_PATIENCE_S."""
    deadline = time.monotonic() + START_PATIENCE_S
    while time.monotonic() < deadline:
        if os.path.exists(path) and os.path.getsize(path) > 0:
            with open(path) as f:
                return f.read().strip()
        if process.poll() is not None:
            raise BenchError(f"{what} exited with status {process.returncode} before writing {path}")
        time.sleep(0.05)
    raise BenchError(f"{what} did not write {path} within {START_PATIENCE_S} s")


class Api:
    """One kept-alive HTTPS connection to the master's /api/v1 with a login token."""

    def __init__(self, url, ca_file):
        host, port = url.split("//", 1)[1].rsplit(":", 1)
        self._context = ssl.create_default_context(cafile=ca_file)
        self._host, self._port = host, int(port)
        self._connection = None
        self.token = None

    def _connect(self):
        self._connection = http.client.HTTPSConnection(self._host, self._port, context=self._context, timeout=600)

    def request(self, method, path, body=None):
        """(status, raw body bytes); reconnects once when the kept-alive connection was closed."""
        headers = {"Content-Type": "application/json"} if body is not None else {}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        for attempt in (1, 2):
            if self._connection is None:
                self._connect()
            try:
                self._connection.request(method, "/api/v1" + path, body=body, headers=headers)
                response = self._connection.getresponse()
                return response.status, response.read()
            except (http.client.RemoteDisconnected, ConnectionError, http.client.CannotSendRequest):
                self._connection.close()
                self._connection = None
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def get(self, path, busy_retries=BUSY_RETRIES):
        """The JSON of GET /api/v1PATH; asks again while the master answers 503 (busy), fails on another reply."""
        for _ in range(busy_retries + 1):
            status, body = self.request("GET", path)
            if status != 503:
                break
        if status != 200:
            raise BenchError(f"GET {path}: HTTP {status}: {body[:300]!r}")
        return json.loads(body)

    def post(self, path, payload=None):
        status, body = self.request("POST", path, json.dumps(payload or {}))
        if status not in (200, 201):
            raise BenchError(f"POST {path}: HTTP {status}: {body[:300]!r}")
        return json.loads(body) if body else {}

    def login(self, username, password):
        self.token = self.post("/auth/login", {"username": username, "password": password})["token"]

    def close(self):
        if self._connection is not None:
            self._connection.close()
            self._connection = None


_FOLDERS_TO_REMOVE = []


def remove_at_exit(folder):
    """Removes FOLDER when the bench's process ends, not now: on ext4 without a
    journal (as on the machines these benchmarks ran on) every file created
    in the minutes after a removal of thousands of files scans the freed
    inodes, so a row right after another's cleanup paid up to half its CPU
    for it (perf: __ext4_new_inode -> recently_deleted), and the rows of one
    run would measure the run's own cleanup."""
    if not _FOLDERS_TO_REMOVE:
        atexit.register(lambda: [shutil.rmtree(path, ignore_errors=True) for path in _FOLDERS_TO_REMOVE])
    _FOLDERS_TO_REMOVE.append(folder)


class Cluster:
    """volador-node master (+ agent with SLOTS CPU slots when SLOTS > 0) on a fresh data folder."""

    def __init__(self, bin_dir, slots, data_dir=None, keep=False):
        self.bin_dir = bin_dir
        self.slots = slots
        self.data = data_dir or tempfile.mkdtemp(prefix="volador-cp-bench-")
        self.keep = keep
        self.master = None
        self.agent = None
        self.api = None
        self.address = None
        self._log = None
        self._password = os.urandom(12).hex()
        self._workers_cpu = {}  # pid: CPU seconds when last read, of every process seen under the agent

    def __enter__(self):
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc):
        self.stop()

    def _spawn(self, args, env=None):
        return subprocess.Popen([os.path.join(self.bin_dir, "volador-node")] + args, stdin=subprocess.DEVNULL,
                                stdout=self._log, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})})

    def start(self):
        os.makedirs(self.data, exist_ok=True)
        self._log = open(os.path.join(self.data, "nodes.log"), "ab")
        self.master = self._spawn(["master", "--data", self.data, "--listen", "127.0.0.1:0",
                                   "--http-listen", "127.0.0.1:0", "--http-tls", "on"],
                                  {"VOLADOR_ADMIN_PASSWORD": self._password})
        self.address = wait_for_file(os.path.join(self.data, "master.addr"), self.master, "the master")
        url = wait_for_file(os.path.join(self.data, "http.addr"), self.master, "the master").rstrip("/")
        self.api = Api(url, os.path.join(self.data, "tls", "ca", "ca.crt"))
        self.api.login("admin", self._password)
        if self.slots > 0:
            self._start_agent()

    def _start_agent(self):
        bundle = os.path.join(self.data, "bench-agent.bundle")
        subprocess.run([os.path.join(self.bin_dir, "volador-node"), "certs", "issue", "bench-agent", "--data", self.data,
                        "-o", bundle], check=True, stdout=self._log, stderr=subprocess.STDOUT)
        self.agent = self._spawn(["agent", "-m", self.address, "--bundle", bundle, "--id", "bench-agent",
                                  "--work-dir", os.path.join(self.data, "agent-work"),
                                  "--slots", str(self.slots), "--slot-type", "cpu"])
        deadline = time.monotonic() + START_PATIENCE_S
        while time.monotonic() < deadline:
            if self.api.get("/agents").get("agents"):
                return
            if self.agent.poll() is not None:
                raise BenchError(f"the agent exited with status {self.agent.returncode} (see {self.data}/nodes.log)")
            time.sleep(0.1)
        raise BenchError(f"the agent did not register within {START_PATIENCE_S} s")

    def cli_env(self):
        """The environment in which `volador` talks to this master as admin."""
        home = os.path.join(self.data, "client-home")
        os.makedirs(home, exist_ok=True)
        timings = os.path.join(self.data, "client-timings.conf")
        with open(timings, "w") as f:
            f.write(f"client_connect_patience = {CLIENT_CONNECT_PATIENCE}\n")
        return {**os.environ, "HOME": home, "VOLADOR_MASTER": self.address, "VOLADOR_CLIENT_TIMINGS": timings,
                "VOLADOR_BUNDLE": os.path.join(self.data, "tls", "admin.bundle"), "VOLADOR_TOKEN": self.api.token}

    def cli(self, args):
        """stdout of `volador ARGS`; fails with its stderr on a non-zero exit."""
        done = subprocess.run([os.path.join(self.bin_dir, "volador")] + args, env=self.cli_env(),
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise BenchError(f"volador {' '.join(args)}: exit {done.returncode}: {done.stderr.strip()}")
        return done.stdout

    def cpu_s(self):
        """CPU seconds of the master, of the agent (with its reaped children) and of the live processes under the
        agent (its warm workers with their reaped commands): {'master': s, 'agent': s, 'workers': s}. A warm
        worker's time is read while it lives: once the agent ends it, its time never reaches the agent's
        reaped children (it runs in a bwrap sandbox of its own pid namespace), so each process's time as last
        read here is kept (a worker ended between two calls loses what it used since the first)."""
        out = {"master": process_cpu_s(self.master.pid)}
        if self.agent is not None:
            out["agent"] = process_cpu_s(self.agent.pid)
            self._workers_cpu.update(tree_cpu_by_pid(self.agent.pid))
            out["workers"] = sum(self._workers_cpu.values())
        return out

    def stop(self):
        """Ends the nodes (SIGTERM, then SIGKILL after 10 s), then any process left under the data folder."""
        if self.api is not None:
            self.api.close()
        for process in (self.agent, self.master):
            if process is not None and process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
        left = processes_under(self.data)
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if left:
            print(f"# warning: {len(left)} process(es) were left under {self.data} after the nodes stopped; killed")
        if self._log is not None:
            self._log.close()
        if self.keep:
            print(f"# data folder kept: {self.data}")
        else:
            remove_at_exit(self.data)
