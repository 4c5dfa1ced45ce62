#include "tests/netns/netns_lab.hpp"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <future>
#include <memory>
#include <random>
#include <sstream>
#include <thread>

#include "runtime/process/child_process.hpp"

namespace volador::testing {
namespace {

constexpr int kMaxHosts = 253;  // 10.77.0.1 .. 10.77.0.253
constexpr const char* kNamePrefix = "vl-";

std::string command_line(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) out += (out.empty() ? "" : " ") + a;
  return out;
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
  auto output = std::make_shared<std::pair<std::string, std::string>>();  // stdout, stderr
  std::promise<process::ProcessExit> exited;
  auto child = process::ChildProcess::spawn(
      {argv, {}, {}},
      [output](std::string_view stream, std::string line) {
        (stream == "stdout" ? output->first : output->second) += line + "\n";
      },
      [&exited](process::ProcessExit exit) { exited.set_value(exit); });
  if (!child) return fail(child.error());
  const auto exit = exited.get_future().get();
  child->reset();  // joins the reader: the output is complete
  if (exit.exit_code == 0) return output->first;
  auto why = output->second;
  while (!why.empty() && why.back() == '\n') why.pop_back();
  const auto status = exit.signal != 0 ? "killed by signal " + std::to_string(exit.signal) : "exit " + std::to_string(exit.exit_code);
  return fail(Error::io("'" + command_line(argv) + "' failed (" + status + "): " + why));
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
