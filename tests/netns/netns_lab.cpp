#include "tests/netns/netns_lab.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <random>
#include <sstream>
#include <thread>

namespace volador::testing {
namespace {

constexpr int kMaxHosts = 253;  // 10.77.0.1 .. 10.77.0.253
constexpr const char* kNamePrefix = "vl-";

std::string command_line(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) out += (out.empty() ? "" : " ") + a;
  return out;
}

// Reads both pipes to their end (in parallel, so neither can fill up), then closes them.
std::pair<std::string, std::string> drain(int out_fd, int err_fd) {
  std::string text[2];
  pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  char buffer[4096];
  while (fds[0].fd >= 0 || fds[1].fd >= 0) {
    if (poll(fds, 2, -1) < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      auto n = read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) text[i].append(buffer, static_cast<std::size_t>(n));
      if (n == 0 || (n < 0 && errno != EINTR)) {
        close(fds[i].fd);
        fds[i].fd = -1;  // poll ignores negative fds
      }
    }
  }
  return {std::move(text[0]), std::move(text[1])};
}

std::string exit_text(int status) {
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "exit " + std::to_string(WEXITSTATUS(status));
}

std::string random_hex() {
  std::random_device device;
  char text[9];
  std::snprintf(text, sizeof text, "%08x", static_cast<unsigned>(device()));
  return text;
}

bool process_alive(pid_t pid) { return ::kill(pid, 0) == 0 || errno == EPERM; }

// The pid in a lab namespace name "vl-<pid>-...", or 0 when it is not one.
pid_t creator_pid(const std::string& name) {
  if (name.rfind(kNamePrefix, 0) != 0) return 0;
  std::size_t end = 0;
  const std::string rest = name.substr(std::strlen(kNamePrefix));
  try {
    auto pid = std::stol(rest, &end);
    return end > 0 && end < rest.size() && rest[end] == '-' && pid > 0 ? static_cast<pid_t>(pid) : 0;
  } catch (const std::exception&) {
    return 0;
  }
}

// The namespace names `ip netns list` shows (its first word per line: "NAME (id: 3)").
std::vector<std::string> list_namespaces() {
  std::vector<std::string> names;
  auto listed = capture_output({"ip", "netns", "list"});
  if (!listed) return names;
  std::istringstream lines(*listed);
  for (std::string line; std::getline(lines, line);) {
    auto name = line.substr(0, line.find(' '));
    if (!name.empty()) names.push_back(name);
  }
  return names;
}

// SIGKILLs the processes inside namespace `name` until none is left (at most ~2 s).
void kill_processes_in(const std::string& name) {
  for (int round = 0; round < 200; ++round) {
    auto pids = capture_output({"ip", "netns", "pids", name});
    if (!pids || pids->empty()) return;
    std::istringstream words(*pids);
    for (pid_t pid; words >> pid;) ::kill(pid, SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

void destroy_namespace(const std::string& name) {
  kill_processes_in(name);
  (void)capture_output({"ip", "netns", "delete", name});
}

}  // namespace

Result<std::string> capture_output(const std::vector<std::string>& argv) {
  if (argv.empty()) return fail(Error::invalid_argument("no command to run"));
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0) return fail(Error::io(std::string("pipe: ") + std::strerror(errno)));
  if (pipe2(err, O_CLOEXEC) != 0) {
    close(out[0]);
    close(out[1]);
    return fail(Error::io(std::string("pipe: ") + std::strerror(errno)));
  }
  auto args = argv;
  std::vector<char*> cargv;
  for (auto& a : args) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  const std::string exec_error = "cannot start '" + argv[0] + "'\n";
  pid_t pid = fork();
  if (pid < 0) return fail(Error::io(std::string("fork: ") + std::strerror(errno)));
  if (pid == 0) {  // only async-signal-safe calls until exec
    dup2(out[1], STDOUT_FILENO);
    dup2(err[1], STDERR_FILENO);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, STDIN_FILENO);
    execvp(cargv[0], cargv.data());
    (void)!write(STDERR_FILENO, exec_error.data(), exec_error.size());
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  auto [stdout_text, stderr_text] = drain(out[0], err[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return stdout_text;
  while (!stderr_text.empty() && stderr_text.back() == '\n') stderr_text.pop_back();
  return fail(Error::io("'" + command_line(argv) + "' failed (" + exit_text(status) + "): " + stderr_text));
}

Result<std::unique_ptr<NetnsLab>> NetnsLab::create(int hosts) {
  if (hosts < 1 || hosts > kMaxHosts)
    return fail(Error::invalid_argument("a lab has 1.." + std::to_string(kMaxHosts) + " hosts, not " +
                                        std::to_string(hosts)));
  remove_stale();
  auto prefix = kNamePrefix + std::to_string(getpid()) + "-" + random_hex();
  // Built in place: on a failure the destructor removes what was made so far.
  std::unique_ptr<NetnsLab> lab(new NetnsLab(std::move(prefix), hosts));
  if (auto s = lab->build_switch(); !s) return fail(s.error());
  for (int i = 0; i < hosts; ++i)
    if (auto s = lab->build_host(i); !s) return fail(s.error());
  return lab;
}

void NetnsLab::remove_stale() {
  for (const auto& name : list_namespaces()) {
    pid_t pid = creator_pid(name);
    if (pid > 0 && !process_alive(pid)) destroy_namespace(name);
  }
}

std::string NetnsLab::address(int host) const { return "10.77.0." + std::to_string(host + 1); }

std::string NetnsLab::namespace_name(int host) const { return prefix_ + "-h" + std::to_string(host); }

std::vector<std::string> NetnsLab::in_host(int host, std::vector<std::string> argv) const {
  std::vector<std::string> out = {"ip", "netns", "exec", namespace_name(host)};
  out.insert(out.end(), std::make_move_iterator(argv.begin()), std::make_move_iterator(argv.end()));
  return out;
}

Status NetnsLab::disconnect(int host) { return set_port(host, "down"); }

Status NetnsLab::reconnect(int host) { return set_port(host, "up"); }

NetnsLab::~NetnsLab() {
  for (auto it = created_.rbegin(); it != created_.rend(); ++it) destroy_namespace(*it);
}

Status NetnsLab::add_namespace(const std::string& name) {
  if (auto s = capture_output({"ip", "netns", "add", name}); !s) return fail(s.error());
  created_.push_back(name);
  if (auto s = capture_output({"ip", "-n", name, "link", "set", "lo", "up"}); !s) return fail(s.error());
  return {};
}

// The switch namespace and its bridge. STP is off (the kernel's default, made
// explicit): ports forward as soon as they are up, with no forwarding delay.
Status NetnsLab::build_switch() {
  const auto sw = switch_namespace();
  if (auto s = add_namespace(sw); !s) return s;
  if (auto s = capture_output({"ip", "-n", sw, "link", "add", "br0", "type", "bridge", "stp_state", "0"}); !s)
    return fail(s.error());
  if (auto s = capture_output({"ip", "-n", sw, "link", "set", "br0", "up"}); !s) return fail(s.error());
  return {};
}

// Host `host`'s namespace; its eth0 is created there with the peer port
// h<host> created directly in the switch namespace (never in the root one).
Status NetnsLab::build_host(int host) {
  const auto ns = namespace_name(host);
  const auto sw = switch_namespace();
  const auto port = "h" + std::to_string(host);
  if (auto s = add_namespace(ns); !s) return s;
  const std::vector<std::vector<std::string>> steps = {
      {"ip", "-n", ns, "link", "add", "eth0", "type", "veth", "peer", "name", port, "netns", sw},
      {"ip", "-n", sw, "link", "set", port, "master", "br0"},
      {"ip", "-n", sw, "link", "set", port, "up"},
      {"ip", "-n", ns, "addr", "add", address(host) + "/24", "dev", "eth0"},
      {"ip", "-n", ns, "link", "set", "eth0", "up"},
  };
  for (const auto& step : steps)
    if (auto s = capture_output(step); !s) return fail(s.error());
  return {};
}

Status NetnsLab::set_port(int host, const char* state) {
  if (host < 0 || host >= hosts_)
    return fail(Error::invalid_argument("no host " + std::to_string(host) + " in a lab of " +
                                        std::to_string(hosts_)));
  auto s = capture_output({"ip", "-n", switch_namespace(), "link", "set", "h" + std::to_string(host), state});
  if (!s) return fail(s.error());
  return {};
}

}  // namespace volador::testing
