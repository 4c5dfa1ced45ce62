#pragma once
// A child process with its stdout and stderr captured line by line. The child
// runs in its own process group (kill() reaches everything it started there)
// and dies with its parent (PR_SET_PDEATHSIG). Handlers run on the object's
// reader thread: keep them short (e.g. send a message to an actor).
// Processes it started that outlive it cannot hold its end back: once it has
// exited, its output is read for a bounded time (kDrainAfterExit).
// On request the child also gets a message channel (message_channel.hpp).

#include <sys/types.h>

#include <atomic>
#include <chrono>
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
#include "runtime/process/message_channel.hpp"
#include "runtime/process/reader_thread.hpp"

namespace volador::process {

// How long a child's output is still read after it exited, for what its
// leftover processes (which may hold the pipes forever) write: until the
// pipes are quiet for kQuietAfterExit, kDrainAfterExit at most.
inline constexpr std::chrono::milliseconds kDrainAfterExit{2000};
inline constexpr std::chrono::milliseconds kQuietAfterExit{200};

struct ProcessSpec {
  std::vector<std::string> argv;               // argv[0] is the program (PATH is searched)
  std::map<std::string, std::string> env;      // added to (or replacing in) the parent's environment
  std::filesystem::path working_dir;           // empty: the parent's
  std::chrono::milliseconds stop_grace{10000};  // terminate(): from SIGTERM to SIGKILL
  // Non-empty: the child gets a message channel, its descriptors named in
  // this environment variable (MessageChannel::from_environment).
  std::string channel_variable;
  // Files (cgroup.procs of a cgroup) the child writes "0" into before it
  // runs anything, so it and everything it starts live in that cgroup.
  // A write that fails makes spawn fail with its errno.
  std::vector<std::filesystem::path> join_cgroups;
};

struct ProcessExit {
  int exit_code = 0;  // -1 when killed by a signal
  int signal = 0;     // the signal that killed it, else 0
};

class ChildProcess {
 public:
  using LineHandler = std::function<void(std::string_view stream, std::string line)>;
  using ExitHandler = std::function<void(ProcessExit)>;
  using MessageHandler = std::function<void(Message)>;

  // Starts the process. `on_line` gets each line of "stdout"/"stderr" (a
  // final unterminated line too; lines over 64 KiB are split); `on_exit` is
  // called once, after both streams are drained (or kDrainAfterExit after
  // the exit). Error io when the program cannot be started (the message
  // names it and errno's text). With a channel, `on_message` gets each
  // message the child sends, after every line the child wrote before it.
  // The handlers run on `reader` when it is given and idle (it must outlive
  // the object), else on a thread the object starts for this child.
  static Result<std::unique_ptr<ChildProcess>> spawn(const ProcessSpec& spec, LineHandler on_line,
                                                     ExitHandler on_exit, MessageHandler on_message = {},
                                                     ReaderThread* reader = nullptr);

  // Sends `message` over the channel without waiting. Error unavailable when
  // there is no channel or the child does not take it now (its end is full or
  // closed); the channel is then closed, as the message may have been cut.
  Status send_message(const Message& message);

  // Kills the whole process group, if still running. Safe to call repeatedly.
  void kill(int signal = SIGKILL);
  // SIGTERM to the process group now, SIGKILL once the spec's stop_grace has
  // passed, if the child is still running then. Returns at once.
  void terminate();

  [[nodiscard]] pid_t pid() const { return pid_; }

  // Kills the process if it is still running and waits for its output loop to end.
  ~ChildProcess();

  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

 private:
  ChildProcess(pid_t pid, int out_fd, int err_fd, std::chrono::milliseconds stop_grace, LineHandler on_line,
               ExitHandler on_exit);
  void pump();
  // Reads what the channel has and hands over its whole messages (the output streams drained first).
  void read_messages();
  ProcessExit reap();

  pid_t pid_;
  int out_fd_, err_fd_;
  int wake_fd_;  // an eventfd: terminate() wakes the reader thread to arm the SIGKILL
  std::chrono::milliseconds stop_grace_;
  LineHandler on_line_;
  ExitHandler on_exit_;
  MessageHandler on_message_;
  int channel_in_fd_ = -1;   // the child's messages
  int channel_out_fd_ = -1;  // to the child, never waited on
  FrameReader frames_;
  std::atomic<bool> exited_{false};
  std::atomic<std::int64_t> kill_at_ns_{0};  // steady clock; 0: no SIGKILL pending
  // The child's output loop runs on a thread of its own, or on a shared one as its run `shared_run_`.
  std::thread reader_;
  ReaderThread* shared_reader_ = nullptr;
  std::uint64_t shared_run_ = 0;
};

}  // namespace volador::process
