#include "runtime/process/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace volador::process {
namespace {

constexpr std::size_t kMaxLine = 64 * 1024;

// The parent's environment with `overrides` applied, as "NAME=VALUE" strings.
std::vector<std::string> merged_environment(const std::map<std::string, std::string>& overrides) {
  std::map<std::string, std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string_view entry(*e);
    auto eq = entry.find('=');
    if (eq != std::string_view::npos) env[std::string(entry.substr(0, eq))] = std::string(entry.substr(eq + 1));
  }
  for (const auto& [k, v] : overrides) env[k] = v;
  std::vector<std::string> out;
  for (const auto& [k, v] : env) out.push_back(k + "=" + v);
  return out;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// In the child after fork: only async-signal-safe calls until exec.
[[noreturn]] void exec_child(const ProcessSpec& spec, char** argv, char** envp, int out_w, int err_w, int status_w) {
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  dup2(out_w, STDOUT_FILENO);
  dup2(err_w, STDERR_FILENO);
  int devnull = open("/dev/null", O_RDONLY);
  if (devnull >= 0) dup2(devnull, STDIN_FILENO);
  if (!spec.working_dir.empty() && chdir(spec.working_dir.c_str()) != 0) {
    int err = errno;
    (void)!write(status_w, &err, sizeof err);
    _exit(127);
  }
  execvpe(argv[0], argv, envp);
  int err = errno;
  (void)!write(status_w, &err, sizeof err);
  _exit(127);
}

}  // namespace

Result<std::unique_ptr<ChildProcess>> ChildProcess::spawn(const ProcessSpec& spec, LineHandler on_line,
                                                          ExitHandler on_exit) {
  if (spec.argv.empty()) return fail(Error::invalid_argument("no program to run"));
  int out[2], err[2], status[2];
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0 || pipe2(status, O_CLOEXEC) != 0)
    return fail(Error::io(std::string("pipe: ") + std::strerror(errno)));
  auto args = spec.argv;
  auto env = merged_environment(spec.env);
  auto argv = c_strings(args);
  auto envp = c_strings(env);
  pid_t pid = fork();
  if (pid < 0) return fail(Error::io(std::string("fork: ") + std::strerror(errno)));
  if (pid == 0) exec_child(spec, argv.data(), envp.data(), out[1], err[1], status[1]);
  close(out[1]);
  close(err[1]);
  close(status[1]);
  int child_errno = 0;
  const bool exec_failed = read(status[0], &child_errno, sizeof child_errno) == sizeof child_errno;
  close(status[0]);
  if (exec_failed) {
    close(out[0]);
    close(err[0]);
    waitpid(pid, nullptr, 0);
    return fail(Error::io("cannot start '" + spec.argv[0] + "'" +
                          (spec.working_dir.empty() ? "" : " in " + spec.working_dir.string()) + ": " +
                          std::strerror(child_errno)));
  }
  return std::unique_ptr<ChildProcess>(
      new ChildProcess(pid, out[0], err[0], std::move(on_line), std::move(on_exit)));
}

ChildProcess::ChildProcess(pid_t pid, int out_fd, int err_fd, LineHandler on_line, ExitHandler on_exit)
    : pid_(pid), out_fd_(out_fd), err_fd_(err_fd), on_line_(std::move(on_line)), on_exit_(std::move(on_exit)) {
  reader_ = std::thread([this] { pump(); });
}

void ChildProcess::pump() {
  struct Stream {
    int fd;
    std::string_view name;
    std::string pending;
  };
  Stream streams[2] = {{out_fd_, "stdout", {}}, {err_fd_, "stderr", {}}};
  int open_streams = 2;
  char buffer[8192];
  while (open_streams > 0) {
    pollfd fds[2] = {{streams[0].fd, POLLIN, 0}, {streams[1].fd, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (streams[i].fd < 0 || fds[i].revents == 0) continue;
      auto n = read(streams[i].fd, buffer, sizeof buffer);
      if (n <= 0) {
        if (!streams[i].pending.empty()) on_line_(streams[i].name, std::move(streams[i].pending));
        close(streams[i].fd);
        streams[i].fd = -1;
        --open_streams;
        continue;
      }
      auto& pending = streams[i].pending;
      pending.append(buffer, static_cast<std::size_t>(n));
      std::size_t start = 0, nl;
      while ((nl = pending.find('\n', start)) != std::string::npos) {
        on_line_(streams[i].name, pending.substr(start, nl - start));
        start = nl + 1;
      }
      pending.erase(0, start);
      while (pending.size() > kMaxLine) {
        on_line_(streams[i].name, pending.substr(0, kMaxLine));
        pending.erase(0, kMaxLine);
      }
    }
  }
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  exited_ = true;
  ProcessExit exit;
  if (WIFSIGNALED(status)) {
    exit.exit_code = -1;
    exit.signal = WTERMSIG(status);
  } else {
    exit.exit_code = WEXITSTATUS(status);
  }
  on_exit_(exit);
}

void ChildProcess::kill(int signal) {
  if (!exited_) ::kill(-pid_, signal);
}

ChildProcess::~ChildProcess() {
  kill(SIGKILL);
  if (reader_.joinable()) reader_.join();
}

}  // namespace volador::process
