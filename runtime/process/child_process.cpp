#include "runtime/process/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

#include "runtime/core/unique_fd.hpp"

extern char** environ;

namespace volador::process {
namespace {

constexpr std::size_t kMaxLine = 64 * 1024;

std::int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// poll()'s timeout in ms until the earliest of `deadlines_ns` that is set (non-zero); -1 when none is.
int poll_timeout(std::initializer_list<std::int64_t> deadlines_ns) {
  std::optional<std::int64_t> earliest;
  for (auto deadline : deadlines_ns)
    if (deadline != 0) earliest = std::min(earliest.value_or(deadline), deadline);
  if (!earliest) return -1;
  return static_cast<int>(std::clamp<std::int64_t>((*earliest - steady_ns()) / 1'000'000 + 1, 0, 60'000));
}

// One of the child's output pipes, read line by line.
struct Stream {
  int fd;
  std::string_view name;
  std::string pending;  // the start of a line whose end has not come yet
};

// Reads what `stream` has and hands over its complete lines; at the end (or an error) the last
// unterminated one, and closes it.
void read_lines(Stream& stream, const ChildProcess::LineHandler& on_line) {
  char buffer[64 * 1024];
  auto n = read(stream.fd, buffer, sizeof buffer);
  if (n < 0 && errno == EINTR) return;
  if (n <= 0) {
    if (!stream.pending.empty()) on_line(stream.name, std::exchange(stream.pending, {}));
    close(stream.fd);
    stream.fd = -1;
    return;
  }
  auto& pending = stream.pending;
  pending.append(buffer, static_cast<std::size_t>(n));
  std::size_t start = 0, nl;
  while ((nl = pending.find('\n', start)) != std::string::npos) {
    on_line(stream.name, pending.substr(start, nl - start));
    start = nl + 1;
  }
  pending.erase(0, start);
  while (pending.size() > kMaxLine) {
    on_line(stream.name, pending.substr(0, kMaxLine));
    pending.erase(0, kMaxLine);
  }
}

// Reads everything `stream` holds now, without waiting for more.
void drain(Stream& stream, const ChildProcess::LineHandler& on_line) {
  for (;;) {
    if (stream.fd < 0) return;
    pollfd fd{stream.fd, POLLIN, 0};
    if (poll(&fd, 1, 0) <= 0 || fd.revents == 0) return;
    read_lines(stream, on_line);
  }
}

// Ends a stream that is still open, handing over its unterminated line.
void abandon(Stream& stream, const ChildProcess::LineHandler& on_line) {
  if (stream.fd < 0) return;
  if (!stream.pending.empty()) on_line(stream.name, std::exchange(stream.pending, {}));
  close(stream.fd);
  stream.fd = -1;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// The child's environment: the parent's entries (pointing into `environ`,
// which must not change until the child has exec'd) but those named in
// `overrides` or `extra`, then both as "NAME=VALUE" (kept in `owned`; a name
// in both takes `extra`'s value); null-terminated. No map of the parent's
// environment is built and no entry of it copied.
std::vector<char*> merged_environment(const std::map<std::string, std::string>& overrides,
                                      const std::map<std::string, std::string>& extra, std::vector<std::string>& owned) {
  std::vector<char*> env;
  std::string name;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const auto eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    name.assign(entry.substr(0, eq));
    if (!overrides.contains(name) && !extra.contains(name)) env.push_back(*e);
  }
  owned.clear();
  owned.reserve(overrides.size() + extra.size());
  for (const auto& [k, v] : overrides)
    if (!extra.contains(k)) owned.push_back(k + "=" + v);
  for (const auto& [k, v] : extra) owned.push_back(k + "=" + v);
  for (auto& entry : owned) env.push_back(entry.data());
  env.push_back(nullptr);
  return env;
}

// The two ends of a pipe or a socket pair: the parent's and the one the child inherits; closed unless released.
struct Ends {
  UniqueFd parent, child;
};

// A close-on-exec pipe from the child to the parent for `purpose`; error io naming it and errno's text.
Result<Ends> pipe_from_child(std::string_view purpose) {
  int ends[2];
  if (pipe2(ends, O_CLOEXEC) != 0) return fail(Error::io("pipe for " + std::string(purpose) + ": " + std::strerror(errno)));
  return Ends{.parent = UniqueFd(ends[0]), .child = UniqueFd(ends[1])};
}

// A close-on-exec pair of connected stream sockets for `purpose`; error io naming it and errno's text.
Result<Ends> socket_pair(std::string_view purpose) {
  int ends[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0)
    return fail(Error::io("socket pair for " + std::string(purpose) + ": " + std::strerror(errno)));
  return Ends{.parent = UniqueFd(ends[0]), .child = UniqueFd(ends[1])};
}

// The child's stack while it shares the parent's memory, until exec: its
// steps and execvpe's search of PATH (which keeps the full names on it).
constexpr std::size_t kChildStackBytes = 256 * 1024;

// The stack a thread's children start on. CLONE_VFORK holds the thread until
// its child has exec'd or exited, so one child at a time uses it, and it is
// kept for the thread's next child: a fresh mapping's pages fault in anew.
class ChildStack {
 public:
  // Its top (stacks grow down); nullptr with errno when it cannot be mapped.
  static char* of_this_thread() {
    thread_local ChildStack stack;
    if (stack.base_ == MAP_FAILED)
      stack.base_ = mmap(nullptr, kChildStackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    return stack.base_ == MAP_FAILED ? nullptr : static_cast<char*>(stack.base_) + kChildStackBytes;
  }
  ~ChildStack() {
    if (base_ != MAP_FAILED) munmap(base_, kChildStackBytes);
  }

 private:
  void* base_ = MAP_FAILED;
};

// What the child needs until exec, all prepared by the parent: the child
// shares the parent's memory and must not allocate. It tells why it could
// not exec in `exec_errno`, which the parent reads once the child has exited
// (CLONE_VFORK holds the parent until then), as posix_spawn does: no pipe.
struct ChildStart {
  const ProcessSpec* spec;
  char** argv;
  char** envp;
  int out_w, err_w;
  int inherited[2];
  int exec_errno = 0;
};

// In the child: records `error` for the parent and exits.
[[noreturn]] void fail_in_child(ChildStart& start, int error) {
  start.exec_errno = error != 0 ? error : EIO;
  _exit(127);
}

// Signal handlers of the parent would run on the memory the child shares
// with it: every signal with one goes back to its default (ignored ones
// stay ignored, as after exec), and so do those the program must see.
void reset_signal_handlers() {
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  for (int signal = 1; signal < NSIG; ++signal) {
    struct sigaction current {};
    if (sigaction(signal, nullptr, &current) != 0) continue;  // one glibc keeps for itself
    if (current.sa_handler != SIG_DFL && current.sa_handler != SIG_IGN) sigaction(signal, &default_action, nullptr);
  }
  for (int signal : {SIGPIPE, SIGTERM, SIGINT, SIGHUP}) sigaction(signal, &default_action, nullptr);
}

// In the child, on the parent's memory with every signal blocked: only
// async-signal-safe calls until exec.
[[noreturn]] void exec_child(ChildStart& start) {
  const auto& spec = *start.spec;
  setpgid(0, 0);
  for (const auto& procs : spec.join_cgroups) {
    int fd = open(procs.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, "0", 1) != 1) fail_in_child(start, errno);
    close(fd);
  }
  for (int fd : start.inherited)
    if (fd >= 0) fcntl(fd, F_SETFD, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  reset_signal_handlers();
  sigset_t none;  // the parent's blocked signals are not the program's
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  dup2(start.out_w, STDOUT_FILENO);
  dup2(start.err_w, STDERR_FILENO);
  int devnull = open("/dev/null", O_RDONLY);
  if (devnull >= 0) dup2(devnull, STDIN_FILENO);
  if (!spec.working_dir.empty() && chdir(spec.working_dir.c_str()) != 0) fail_in_child(start, errno);
  execvpe(start.argv[0], start.argv, start.envp);
  fail_in_child(start, errno);
}

int run_child(void* start) { exec_child(*static_cast<ChildStart*>(start)); }

// Starts the child as posix_spawn does: on the parent's memory (CLONE_VM),
// this thread waiting until it has exec'd or exited (CLONE_VFORK). Unlike
// fork(), nothing of a large parent is copied, nor write-protected to be
// copied on its next write. -1 with errno when it could not be started.
pid_t start_child(ChildStart& start) {
  char* stack_top = ChildStack::of_this_thread();
  if (stack_top == nullptr) return -1;
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);  // until the child resets its handlers
  const pid_t pid = clone(run_child, stack_top, CLONE_VM | CLONE_VFORK | SIGCHLD, &start);
  const int clone_errno = errno;
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  errno = clone_errno;
  return pid;
}

}  // namespace

Result<std::unique_ptr<ChildProcess>> ChildProcess::spawn(const ProcessSpec& spec, LineHandler on_line,
                                                          ExitHandler on_exit, MessageHandler on_message,
                                                          ReaderThread* reader) {
  if (spec.argv.empty()) return fail(Error::invalid_argument("no program to run"));
  auto out = pipe_from_child("the child's stdout");
  if (!out) return fail(out.error());
  auto err = pipe_from_child("the child's stderr");
  if (!err) return fail(err.error());
  Ends to_child, from_child;
  std::map<std::string, std::string> channel_env;  // the channel's variable, over the spec's
  if (!spec.channel_variable.empty()) {
    // Sockets both ways, so that neither side's send to the other one gone raises SIGPIPE (MSG_NOSIGNAL).
    auto to = socket_pair("messages to the child");
    if (!to) return fail(to.error());
    auto from = socket_pair("messages from the child");
    if (!from) return fail(from.error());
    to_child = std::move(*to);
    from_child = std::move(*from);
    channel_env[spec.channel_variable] =
        std::to_string(to_child.child.get()) + "," + std::to_string(from_child.child.get());
  }
  auto args = spec.argv;
  std::vector<std::string> env_overrides;
  auto envp = merged_environment(spec.env, channel_env, env_overrides);
  auto argv = c_strings(args);
  ChildStart start{.spec = &spec,
                   .argv = argv.data(),
                   .envp = envp.data(),
                   .out_w = out->child.get(),
                   .err_w = err->child.get(),
                   .inherited = {to_child.child.get(), from_child.child.get()}};
  const pid_t pid = start_child(start);
  if (pid < 0) return fail(Error::io(std::string("clone: ") + std::strerror(errno)));
  for (auto* ends : {&*out, &*err, &to_child, &from_child}) ends->child.reset();
  if (from_child.parent) fcntl(from_child.parent.get(), F_SETFL, O_NONBLOCK);  // the reader thread never waits on it
  const int child_errno = start.exec_errno;  // the child has exec'd or exited: CLONE_VFORK
  if (child_errno != 0) {
    waitpid(pid, nullptr, 0);
    return fail(Error::io("cannot start '" + spec.argv[0] + "'" +
                          (spec.working_dir.empty() ? "" : " in " + spec.working_dir.string()) + ": " +
                          std::strerror(child_errno)));
  }
  auto child = std::unique_ptr<ChildProcess>(new ChildProcess(pid, out->parent.release(), err->parent.release(),
                                                              spec.stop_grace, std::move(on_line), std::move(on_exit)));
  child->on_message_ = std::move(on_message);
  child->channel_in_fd_ = from_child.parent.release();
  child->channel_out_fd_ = to_child.parent.release();
  auto loop = [raw = child.get()] { raw->pump(); };
  if (auto run = reader ? reader->try_run(loop) : std::nullopt) {
    child->shared_reader_ = reader;
    child->shared_run_ = *run;
  } else {
    child->reader_ = std::thread(loop);
  }
  return child;
}

ChildProcess::ChildProcess(pid_t pid, int out_fd, int err_fd, std::chrono::milliseconds stop_grace,
                           LineHandler on_line, ExitHandler on_exit)
    : pid_(pid),
      out_fd_(out_fd),
      err_fd_(err_fd),
      wake_fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)),
      stop_grace_(stop_grace),
      on_line_(std::move(on_line)),
      on_exit_(std::move(on_exit)) {}

// Reads both streams until they end, or until kDrainAfterExit after the
// child's exit (seen through a pidfd; without one, streams are read to
// their end) once they are quiet, firing a pending SIGKILL on time; then
// reports the exit.
void ChildProcess::pump() {
  Stream streams[2] = {{out_fd_, "stdout", {}}, {err_fd_, "stderr", {}}};
  const int exit_fd = static_cast<int>(syscall(SYS_pidfd_open, pid_, 0));
  std::optional<ProcessExit> exit;
  std::int64_t exited_at_ns = 0, last_output_ns = 0, drain_until_ns = 0;
  while ((streams[0].fd >= 0 || streams[1].fd >= 0) && !(exit && steady_ns() >= drain_until_ns)) {
    pollfd fds[5] = {{streams[0].fd, POLLIN, 0}, {streams[1].fd, POLLIN, 0}, {exit ? -1 : exit_fd, POLLIN, 0},
                     {wake_fd_, POLLIN, 0}, {channel_in_fd_, POLLIN, 0}};
    const auto kill_at_ns = kill_at_ns_.load();
    if (poll(fds, 5, poll_timeout({exit ? 0 : kill_at_ns, drain_until_ns})) < 0 && errno != EINTR) break;
    if (fds[3].revents != 0) {
      std::uint64_t count = 0;
      (void)!read(wake_fd_, &count, sizeof count);
    }
    if (!exit && kill_at_ns != 0 && steady_ns() >= kill_at_ns) {
      ::kill(-pid_, SIGKILL);
      kill_at_ns_ = 0;
    }
    if (fds[2].revents != 0) {
      exit = reap();
      exited_at_ns = last_output_ns = steady_ns();
    }
    for (int i = 0; i < 2; ++i) {
      if (streams[i].fd < 0 || fds[i].revents == 0) continue;
      read_lines(streams[i], on_line_);
      last_output_ns = steady_ns();
    }
    if (fds[4].revents != 0) {
      for (auto& stream : streams) drain(stream, on_line_);  // what the child wrote before its message
      read_messages();
    }
    if (exit)
      drain_until_ns = std::min(exited_at_ns + std::chrono::nanoseconds(kDrainAfterExit).count(),
                                last_output_ns + std::chrono::nanoseconds(kQuietAfterExit).count());
  }
  for (auto& stream : streams) abandon(stream, on_line_);
  if (channel_in_fd_ >= 0) read_messages();  // what it sent before its end
  if (exit_fd >= 0) close(exit_fd);
  on_exit_(exit ? *exit : reap());
}

void ChildProcess::read_messages() {
  char buffer[64 * 1024];
  const auto n = read(channel_in_fd_, buffer, sizeof buffer);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  if (n > 0) frames_.append(buffer, static_cast<std::size_t>(n));
  bool broken = n <= 0;  // the child closed its end, or the stream broke
  for (;;) {
    auto message = frames_.next();
    if (!message) broken = true;
    if (!message || !*message) break;
    if (on_message_) on_message_(std::move(**message));
  }
  if (broken) {  // no more messages
    close(channel_in_fd_);
    channel_in_fd_ = -1;
  }
}

Status ChildProcess::send_message(const Message& message) {
  if (channel_out_fd_ < 0) return fail(Error::unavailable("the child has no open message channel"));
  const auto framed = frame_message(message);
  const auto n = ::send(channel_out_fd_, framed.data(), framed.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  if (n == static_cast<ssize_t>(framed.size())) return {};
  const auto why = n < 0 ? std::string(std::strerror(errno)) : "its end took " + std::to_string(n) + " bytes of " +
                                                                     std::to_string(framed.size());
  close(std::exchange(channel_out_fd_, -1));
  return fail(Error::unavailable("the child does not take messages now: " + why));
}

ProcessExit ChildProcess::reap() {
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
  return exit;
}

void ChildProcess::kill(int signal) {
  if (!exited_) ::kill(-pid_, signal);
}

void ChildProcess::terminate() {
  if (exited_) return;
  if (kill_at_ns_ == 0) kill_at_ns_ = steady_ns() + std::chrono::nanoseconds(stop_grace_).count();
  ::kill(-pid_, SIGTERM);
  const std::uint64_t one = 1;
  (void)!write(wake_fd_, &one, sizeof one);
}

ChildProcess::~ChildProcess() {
  kill(SIGKILL);
  if (reader_.joinable()) reader_.join();
  if (shared_reader_ != nullptr) shared_reader_->wait(shared_run_);
  if (wake_fd_ >= 0) close(wake_fd_);
  for (int fd : {channel_in_fd_, channel_out_fd_})
    if (fd >= 0) close(fd);
}

}  // namespace volador::process
