#pragma once
// A child process with its stdout and stderr captured line by line. The child
// runs in its own process group (kill() reaches everything it started) and
// dies with its parent (PR_SET_PDEATHSIG). Handlers run on the object's
// reader thread: keep them short (e.g. send a message to an actor).

#include <sys/types.h>

#include <csignal>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "runtime/core/error.hpp"

namespace volador::process {

struct ProcessSpec {
  std::vector<std::string> argv;               // argv[0] is the program (PATH is searched)
  std::map<std::string, std::string> env;      // added to (or replacing in) the parent's environment
  std::filesystem::path working_dir;           // empty: the parent's
};

struct ProcessExit {
  int exit_code = 0;  // -1 when killed by a signal
  int signal = 0;     // the signal that killed it, else 0
};

class ChildProcess {
 public:
  using LineHandler = std::function<void(std::string_view stream, std::string line)>;
  using ExitHandler = std::function<void(ProcessExit)>;

  // Starts the process. `on_line` gets each line of "stdout"/"stderr" (a
  // final unterminated line too; lines over 64 KiB are split); `on_exit` is
  // called once, after both streams are drained. Error io when the program
  // cannot be started (the message names it and errno's text).
  static Result<std::unique_ptr<ChildProcess>> spawn(const ProcessSpec& spec, LineHandler on_line,
                                                     ExitHandler on_exit);

  // Kills the whole process group, if still running. Safe to call repeatedly.
  void kill(int signal = SIGKILL);

  [[nodiscard]] pid_t pid() const { return pid_; }

  // Kills the process if it is still running and waits for the reader thread.
  ~ChildProcess();

  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

 private:
  ChildProcess(pid_t pid, int out_fd, int err_fd, LineHandler on_line, ExitHandler on_exit);
  void pump();

  pid_t pid_;
  int out_fd_, err_fd_;
  LineHandler on_line_;
  ExitHandler on_exit_;
  std::atomic<bool> exited_{false};
  std::thread reader_;
};

}  // namespace volador::process
