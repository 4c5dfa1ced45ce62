// The namespace lab for real: namespaces, veths, a bridge and TCP traffic
// between hosts (Python sockets; no ping or iptables is assumed). Needs root
// and `ip netns`; without them every test case warns and passes.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <future>
#include <mutex>
#include <sstream>
#include <thread>

#include "runtime/process/child_process.hpp"
#include "tests/netns/netns_lab.hpp"

using namespace volador;
using namespace volador::testing;
using volador::process::ChildProcess;
using volador::process::ProcessExit;

namespace {

using namespace std::chrono_literals;

constexpr int kPort = 7700;

const std::string kPython = std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";

// An echo server on kPort, one thread per connection; prints "ready" once listening.
constexpr const char* kEchoServer = R"(
import socket, sys, threading
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", int(sys.argv[1])))
s.listen(64)
print("ready", flush=True)
def echo(c):
    while True:
        data = c.recv(4096)
        if not data:
            return
        c.sendall(data)
while True:
    c, _ = s.accept()
    threading.Thread(target=echo, args=(c,), daemon=True).start()
)";

// Connects to argv[1]:argv[2] within argv[3] seconds; prints "connected",
// "timeout" or the errno name (ECONNREFUSED, ENETUNREACH, ...).
constexpr const char* kProbe = R"(
import errno, socket, sys
try:
    socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=float(sys.argv[3])).close()
    print("connected")
except TimeoutError:
    print("timeout")
except OSError as e:
    print(errno.errorcode.get(e.errno, str(e)))
)";

// Why the lab cannot be used on this machine, or "" when it can (checked once).
std::string why_unusable() {
  static const std::string reason = []() -> std::string {
    if (geteuid() != 0) return "not root (network namespaces need CAP_SYS_ADMIN)";
    auto probe = "vl-" + std::to_string(getpid()) + "-probe";
    if (auto s = capture_output({"ip", "netns", "add", probe}); !s) return "`ip netns` unusable: " + s.error().message;
    (void)capture_output({"ip", "netns", "delete", probe});
    if (!capture_output({kPython, "-c", "import socket"})) return kPython + " cannot run (the traffic checks use it)";
    return "";
  }();
  return reason;
}

// Warns and returns true when the lab cannot run here (Catch2 v2 has no SKIP).
bool skip() {
  auto why = why_unusable();
  if (!why.empty()) WARN("netns lab test skipped: " << why);
  return !why.empty();
}

std::vector<std::string> namespaces() {
  std::vector<std::string> names;
  std::istringstream lines(capture_output({"ip", "netns", "list"}).value_or(""));
  for (std::string line; std::getline(lines, line);) names.push_back(line.substr(0, line.find(' ')));
  return names;
}

bool listed(const std::string& name) {
  auto names = namespaces();
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The pids `ip netns pids` lists for `ns`, once it lists any (waits up to 5 s:
// `ip netns exec` enters the namespace a moment after it is spawned).
std::string pids_inside(const std::string& ns) {
  std::string pids;
  for (int i = 0; i < 500 && (pids = capture_output({"ip", "netns", "pids", ns}).value_or("")).empty(); ++i)
    std::this_thread::sleep_for(10ms);
  return pids;
}

// The outcome of a TCP connect from host `from` to host `to` (see kProbe).
std::string probe(const NetnsLab& lab, int from, int to, double timeout_s = 1.0) {
  auto out = capture_output(
      lab.in_host(from, {kPython, "-c", kProbe, lab.address(to), std::to_string(kPort), std::to_string(timeout_s)}));
  if (!out) return "error: " + out.error().message;
  while (!out->empty() && out->back() == '\n') out->pop_back();
  return *out;
}

// A process in a host, its exit reported through a future; ready() waits for a "ready" line.
struct Spawned {
  struct State {
    std::mutex mutex;
    std::promise<void> ready;
    bool got_ready = false;
    std::promise<ProcessExit> exit;
  };
  std::shared_ptr<State> state = std::make_shared<State>();
  std::future<void> ready_future = state->ready.get_future();
  std::future<ProcessExit> exit_future = state->exit.get_future();
  std::unique_ptr<ChildProcess> child;

  bool ready() { return ready_future.wait_for(10s) == std::future_status::ready; }
};

std::unique_ptr<Spawned> spawn(std::vector<std::string> argv) {
  auto s = std::make_unique<Spawned>();
  auto state = s->state;
  auto child = ChildProcess::spawn(
      {std::move(argv), {}, {}},
      [state](std::string_view, std::string line) {
        std::lock_guard lock(state->mutex);
        if (line == "ready" && !state->got_ready) {
          state->got_ready = true;
          state->ready.set_value();
        }
      },
      [state](ProcessExit e) { state->exit.set_value(e); });
  REQUIRE(child.has_value());
  s->child = std::move(*child);
  return s;
}

std::unique_ptr<Spawned> spawn_in(const NetnsLab& lab, int host, std::vector<std::string> argv) {
  return spawn(lab.in_host(host, std::move(argv)));
}

std::unique_ptr<Spawned> echo_server(const NetnsLab& lab, int host) {
  auto s = spawn_in(lab, host, {kPython, "-c", kEchoServer, std::to_string(kPort)});
  REQUIRE(s->ready());
  return s;
}

std::unique_ptr<NetnsLab> make_lab(int hosts) {
  auto lab = NetnsLab::create(hosts);
  if (!lab) FAIL("NetnsLab::create(" << hosts << "): " << lab.error().message);
  return std::move(*lab);
}

// A TCP socket made inside host `host`'s namespace: setns() from a helper
// thread changes only that thread, and a socket keeps the namespace it was made in.
int socket_in(const NetnsLab& lab, int host) {
  int fd = -1;
  std::thread([&] {
    int ns = open(("/var/run/netns/" + lab.namespace_name(host)).c_str(), O_RDONLY | O_CLOEXEC);
    if (ns >= 0 && setns(ns, CLONE_NEWNET) == 0) fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (ns >= 0) close(ns);
  }).join();
  return fd;
}

bool readable_within(int fd, int ms) {
  pollfd p{fd, POLLIN, 0};
  return poll(&p, 1, ms) == 1;
}

int socket_error(int fd) {
  int err = 0;
  socklen_t len = sizeof err;
  getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
  return err;
}

}  // namespace

TEST_CASE("Hosts of a lab reach each other over the bridge, and nothing is made in the root namespace") {
  if (skip()) return;
  auto root_links_before = capture_output({"ip", "-o", "link", "show"});
  auto lab = make_lab(3);
  CHECK(capture_output({"ip", "-o", "link", "show"}).value_or("") == root_links_before.value_or("-"));
  CHECK(lab->hosts() == 3);
  CHECK(lab->address(0) == "10.77.0.1");
  CHECK(lab->address(2) == "10.77.0.3");
  CHECK(lab->namespace_name(1).rfind("vl-" + std::to_string(getpid()) + "-", 0) == 0);
  CHECK(lab->in_host(1, {"true"}) == std::vector<std::string>{"ip", "netns", "exec", lab->namespace_name(1), "true"});
  auto addr = capture_output(lab->in_host(2, {"ip", "-4", "-o", "addr", "show", "dev", "eth0"}));
  REQUIRE(addr.has_value());
  CHECK(addr->find("10.77.0.3/24") != std::string::npos);

  auto server0 = echo_server(*lab, 0);
  auto server2 = echo_server(*lab, 2);
  CHECK(probe(*lab, 1, 0) == "connected");
  CHECK(probe(*lab, 1, 2) == "connected");
  CHECK(probe(*lab, 0, 1) == "ECONNREFUSED");  // no server on host 1: a reachable host refuses

  std::vector<std::string> names = {lab->switch_namespace()};
  for (int i = 0; i < lab->hosts(); ++i) names.push_back(lab->namespace_name(i));
  for (const auto& n : names) CHECK(listed(n));
  lab.reset();
  for (const auto& n : names) CHECK_FALSE(listed(n));
}

TEST_CASE("disconnect drops a host's packets silently and reconnect lets them through again") {
  if (skip()) return;
  auto lab = make_lab(3);
  auto server0 = echo_server(*lab, 0);
  auto server2 = echo_server(*lab, 2);
  REQUIRE(probe(*lab, 1, 2) == "connected");

  REQUIRE(lab->disconnect(2).has_value());
  CHECK(probe(*lab, 1, 2) == "timeout");    // dropped, not refused or unreachable
  CHECK(probe(*lab, 1, 0) == "connected");  // the rest of the lab is unaffected
  CHECK(probe(*lab, 2, 0) == "timeout");    // inside host 2: routes kept, no ENETUNREACH
  auto route = capture_output({"ip", "-n", lab->namespace_name(2), "-4", "route", "show"});
  CHECK(route.value_or("").find("10.77.0.0/24") != std::string::npos);

  REQUIRE(lab->reconnect(2).has_value());
  CHECK(probe(*lab, 1, 2, 3.0) == "connected");
  CHECK(probe(*lab, 2, 0, 3.0) == "connected");
}

TEST_CASE("An established connection sees no RST or FIN across a disconnect and resumes after reconnect") {
  if (skip()) return;
  auto lab = make_lab(3);
  auto server2 = echo_server(*lab, 2);
  int fd = socket_in(*lab, 1);
  REQUIRE(fd >= 0);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(kPort);
  inet_pton(AF_INET, lab->address(2).c_str(), &to.sin_addr);
  REQUIRE(connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) == 0);
  char byte = 'a';
  REQUIRE(send(fd, &byte, 1, MSG_NOSIGNAL) == 1);
  REQUIRE(readable_within(fd, 2000));
  REQUIRE(recv(fd, &byte, 1, 0) == 1);
  CHECK(byte == 'a');

  REQUIRE(lab->disconnect(2).has_value());
  byte = 'b';
  CHECK(send(fd, &byte, 1, MSG_NOSIGNAL) == 1);
  CHECK_FALSE(readable_within(fd, 1000));  // neither the echo nor a RST/FIN arrives
  CHECK(socket_error(fd) == 0);

  REQUIRE(lab->reconnect(2).has_value());
  auto start = std::chrono::steady_clock::now();
  REQUIRE(readable_within(fd, 10000));  // TCP's retransmission gets through
  byte = 0;
  CHECK(recv(fd, &byte, 1, 0) == 1);
  CHECK(byte == 'b');
  CHECK(socket_error(fd) == 0);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
  INFO("echo arrived " << ms.count() << " ms after reconnect");
  close(fd);
}

TEST_CASE("Two labs created at once do not collide") {
  if (skip()) return;
  auto a = std::async(std::launch::async, [] { return NetnsLab::create(2); });
  auto b = std::async(std::launch::async, [] { return NetnsLab::create(2); });
  auto lab_a = a.get();
  auto lab_b = b.get();
  REQUIRE(lab_a.has_value());
  REQUIRE(lab_b.has_value());
  auto& la = **lab_a;
  auto& lb = **lab_b;
  CHECK(la.namespace_name(0) != lb.namespace_name(0));
  CHECK(la.switch_namespace() != lb.switch_namespace());
  CHECK(la.address(0) == lb.address(0));  // same addresses, separate networks
  auto server_a = echo_server(la, 0);
  CHECK(probe(la, 1, 0) == "connected");
  CHECK(probe(lb, 1, 0) == "ECONNREFUSED");  // lab b's host 0 has no server: a separate host
  auto server_b = echo_server(lb, 0);
  CHECK(probe(lb, 1, 0) == "connected");
}

TEST_CASE("The destructor kills the processes left in the lab and deletes its namespaces") {
  if (skip()) return;
  auto lab = make_lab(2);
  const auto ns = lab->namespace_name(0);
  auto sleeper = spawn_in(*lab, 0, {"sleep", "600"});
  CHECK(pids_inside(ns) == std::to_string(sleeper->child->pid()) + "\n");  // ip execs the program

  lab.reset();
  REQUIRE(sleeper->exit_future.wait_for(5s) == std::future_status::ready);
  CHECK(sleeper->exit_future.get().signal == SIGKILL);
  CHECK_FALSE(listed(ns));
}

TEST_CASE("remove_stale deletes the namespaces of dead processes only, killing what runs inside") {
  if (skip()) return;
  auto live = make_lab(1);  // first: create() itself calls remove_stale
  pid_t dead = fork();
  if (dead == 0) _exit(0);
  REQUIRE(dead > 0);
  waitpid(dead, nullptr, 0);
  const auto stale = "vl-" + std::to_string(dead) + "-deadbeef-h0";
  REQUIRE(capture_output({"ip", "netns", "add", stale}).has_value());
  auto inside = spawn({"ip", "netns", "exec", stale, "sleep", "600"});
  REQUIRE_FALSE(pids_inside(stale).empty());

  NetnsLab::remove_stale();
  CHECK_FALSE(listed(stale));
  CHECK(listed(live->namespace_name(0)));  // this process is alive: its lab stays
  CHECK(listed(live->switch_namespace()));
  REQUIRE(inside->exit_future.wait_for(5s) == std::future_status::ready);
  CHECK(inside->exit_future.get().signal == SIGKILL);
  (void)capture_output({"ip", "netns", "delete", stale});
}

TEST_CASE("A bad host count or host index is invalid_argument") {
  if (skip()) return;
  auto none = NetnsLab::create(0);
  REQUIRE_FALSE(none.has_value());
  CHECK(none.error().code == ErrorCode::invalid_argument);
  auto lab = make_lab(1);
  auto bad = lab->disconnect(1);
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().code == ErrorCode::invalid_argument);
  auto failed = capture_output({"ip", "link", "show", "no-such-link0"});
  REQUIRE_FALSE(failed.has_value());
  CHECK(failed.error().message.find("ip link show no-such-link0") != std::string::npos);
  CHECK(failed.error().message.find("does not exist") != std::string::npos);
}
