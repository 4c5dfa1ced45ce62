#include "runtime/worker/command_trial.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <mutex>
#include <optional>
#include <span>

#include <fmt/format.h>

#include "runtime/collective/tcp_listener.hpp"
#include "runtime/process/child_process.hpp"
#include "runtime/process/process_tree.hpp"
#include "runtime/process/reader_thread.hpp"
#include "runtime/command/distributed_environment.hpp"
#include "runtime/command/hparam_passing.hpp"
#include "runtime/command/json_environment.hpp"
#include "runtime/command/metric_pattern.hpp"
#include "runtime/command/report_line.hpp"
#include "runtime/worker/command_checkpoint.hpp"
#include "runtime/worker/container_limits.hpp"

namespace volador::worker {
namespace {

namespace fs = std::filesystem;

// What the command's reader thread hands to the session thread.
struct CommandEvent {
  bool exited = false;
  std::string stream;  // stdout | stderr
  std::string line;
  process::ProcessExit exit;
};

// Output the reader thread may queue before it waits for the session thread
// (and the command for it): a flood costs bounded memory.
constexpr std::size_t kMaxQueuedBytes = 8 << 20;

// Filled by the reader thread, drained by the session thread.
class EventQueue {
 public:
  // Waits while kMaxQueuedBytes are queued; after close(), drops the event.
  void push(CommandEvent event) {
    std::unique_lock lock(mutex_);
    room_.wait(lock, [&] { return closed_ || bytes_ < kMaxQueuedBytes; });
    if (closed_) return;
    bytes_ += event.line.size();
    events_.push_back(std::move(event));
  }
  std::deque<CommandEvent> take() {
    std::lock_guard lock(mutex_);
    bytes_ = 0;
    room_.notify_all();
    return std::exchange(events_, {});
  }
  // No one takes events any more: push() returns at once.
  void close() {
    std::lock_guard lock(mutex_);
    closed_ = true;
    room_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable room_;
  std::deque<CommandEvent> events_;
  std::size_t bytes_ = 0;
  bool closed_ = false;
};

// Closes the queue when the session thread stops taking from it, so that
// the reader thread, which it then joins, never waits for room.
struct CloseWhenDone {
  std::shared_ptr<EventQueue> events;
  ~CloseWhenDone() { events->close(); }
};

// The thread that reads the commands' output, one command after another, for the worker's life.
process::ReaderThread& command_output_reader() {
  static process::ReaderThread reader;
  return reader;
}

void print_line(std::FILE* stream, const std::string& line) {
  std::fwrite(line.data(), 1, line.size(), stream);
  std::fputc('\n', stream);
  std::fflush(stream);
}

// Ends what the command left running (which may hold its output open) before its run is answered.
void end_leftovers(std::chrono::milliseconds grace) {
  const auto left = process::live_descendants(getpid()).size();
  if (left == 0) return;
  print_line(stdout, fmt::format("volador-worker: the command exited; ending the {} process(es) it left running", left));
  process::terminate_descendants(grace);
}

// Rank 0 picks a free port on its data-plane address and every rank learns it.
Result<std::uint16_t> agree_on_master_port(JoinedTrial& joined, std::uint32_t rank) {
  const auto& group = joined.session->group();
  float port = 0;  // a port is exact in a float, and floats are what the group broadcasts
  if (rank == 0) {
    auto listener = collective::TcpListener::open(group.ranks.front().host);
    if (listener) port = static_cast<float>(listener->endpoint().port);
    else print_line(stderr, "volador-worker: cannot pick MASTER_PORT: " + listener.error().message);
  }  // closed here: the command binds it
  std::span<float> value(&port, 1);
  if (auto sent = joined.group->broadcast_from_rank0(std::span(&value, 1)); !sent)
    return fail(Error::unavailable("cannot share MASTER_PORT with the other ranks: " + sent.error().message));
  if (port <= 0) return fail(Error::unavailable("rank 0 could not pick a free port for MASTER_PORT"));
  return static_cast<std::uint16_t>(port);
}

// Writes `value` to `file_name` in `work_dir`; the variables `names` that pass it.
Result<command::EnvironmentVariables> pass_json(const nlohmann::json& value, command::JsonVariables names,
                                                const fs::path& work_dir, const char* file_name) {
  const auto file = work_dir / file_name;
  auto json = command::render_json(value);
  if (auto written = command::write_json_file(json, file); !written) return fail(written.error());
  return command::json_environment(std::move(json), names, file.native());
}

// The command's environment on top of the worker's own: the trial's (a warm
// worker's later trial), then the hyperparameters, the config's data section
// (each also in a file in `work_dir`) and the distributed layout.
Result<command::EnvironmentVariables> command_environment(const WorkerLaunch& launch, const wire::RankGroup& group,
                                                         const fs::path& work_dir, std::uint16_t master_port) {
  auto env = pass_json(launch.hparams, command::kHparamsVariables, work_dir, kHparamsFileName);
  if (!env) return fail(env.error());
  auto data = pass_json(launch.data, command::kDataVariables, work_dir, kDataFileName);
  if (!data) return fail(data.error());
  env->merge(*data);
  for (const auto& [name, value] : launch.environment) env->emplace(name, value);
  if (launch.world_size > 1) {
    command::RankLayout layout;
    for (const auto& rank : group.ranks) layout.ranks.push_back({rank.host_id, rank.host});
    layout.master_port = master_port;
    auto distributed = command::distributed_environment(layout, launch.hello.rank);
    if (!distributed) return fail(distributed.error());
    env->merge(*distributed);
  }
#ifdef VOLADOR_PYTHON_PACKAGE_DIR
  // `from volador.reporting import ...` works without installing anything.
  const char* user = std::getenv("PYTHONPATH");
  (*env)["PYTHONPATH"] = std::string(VOLADOR_PYTHON_PACKAGE_DIR) + (user && *user ? std::string(":") + user : "");
#endif
  (*env)["PYTHONUNBUFFERED"] = "1";  // metric lines arrive as they are printed
  return env;
}

// A checkpoint report's `checkpoint` names the script's snapshot until the rank has captured it.
wire::MetricReport to_wire(const command::Report& report, const WorkerLaunch& launch) {
  static constexpr wire::ReportKind kinds[] = {wire::ReportKind::intermediate, wire::ReportKind::loss,
                                               wire::ReportKind::final_result, wire::ReportKind::metrics,
                                               wire::ReportKind::checkpoint};
  return {launch.hello.run_id, launch.hello.rank, kinds[static_cast<int>(report.kind)], report.value, report.metrics,
          report.step, report.folder};
}

// The report on a stdout line, if any: a reporting-API line, else the pattern's metrics.
std::optional<wire::MetricReport> read_report(const std::string& line, const command::MetricPattern& pattern,
                                              const WorkerLaunch& launch) {
  auto api = command::parse_report_line(line);
  if (!api) {
    print_line(stderr, "volador-worker: ignoring a report line: " + api.error().message);
    return std::nullopt;
  }
  if (*api) return to_wire(**api, launch);
  auto found = pattern.find_metrics(line);
  if (found.empty()) return std::nullopt;
  wire::MetricReport report{launch.hello.run_id, launch.hello.rank, wire::ReportKind::metrics, 0, {}, std::nullopt};
  for (auto& metric : found) report.metrics[metric.name] = metric.value;  // a repeated name: the last wins
  return report;
}

std::string describe(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& word : argv) out += (out.empty() ? "" : " ") + word;
  return out;
}

// The outcome of one `run`: the answer, or nullopt when the trial stopped this rank.
using RunOutcome = Result<std::optional<wire::WorkloadResult>>;

// Rank 0 captures the checkpoint folder (or the snapshot `snapshot`) into the
// run's staging folder and reports it to the trial; other ranks drop their
// snapshots. An empty folder reports nothing.
Status save_checkpoint(actors::RankSession& session, const WorkerLaunch& launch, const wire::WorkloadRequest& request,
                       CommandCheckpoints& checkpoints, const std::string& snapshot) {
  if (launch.hello.rank != 0) {
    checkpoints.drop_snapshot(snapshot);
    return {};
  }
  if (request.path.empty()) return fail(Error::internal("the trial gave no folder to stage checkpoints in"));
  auto captured = checkpoints.capture(request.path, snapshot);
  if (!captured) return fail(captured.error());
  if (!*captured) {
    print_line(stdout, "volador-worker: the checkpoint folder holds no file: no checkpoint saved");
    return {};
  }
  print_line(stdout, "volador-worker: checkpoint " + **captured + " captured");
  session.report({launch.hello.run_id, 0, wire::ReportKind::checkpoint, 0, {}, std::nullopt, **captured});
  return {};
}

RunOutcome run_command(actors::RankSession& session, const WorkerLaunch& launch, const wire::WorkloadRequest& request,
                       const std::vector<std::string>& user_argv, std::uint16_t master_port) {
  auto failed = [&](const std::string& why) -> RunOutcome {
    print_line(stderr, "volador-worker: " + why);
    return std::optional(wire::WorkloadResult{{}, request.start_batch, why});
  };
  auto pattern = command::MetricPattern::from_format(request.metric_pattern);
  if (!pattern) return failed("metrics_collector.format: " + pattern.error().message);
  const auto work_dir = fs::current_path();
  auto checkpoints = CommandCheckpoints::prepare(work_dir, launch.restore_path);
  if (!checkpoints) return failed(checkpoints.error().message);
  auto env = command_environment(launch, session.group(), work_dir, master_port);
  if (!env) return failed(env.error().message);
  for (auto& [name, value] : checkpoints->environment()) (*env)[name] = value;
  auto argv = command::command_arguments(user_argv, launch.hparams);
  if (!argv) return failed("entrypoint: " + argv.error().message);

  const auto container_limits =
      watch_container_limits(std::getenv(kContainerMemoryVariable), std::getenv(kContainerProcessVariable));
  auto events = std::make_shared<EventQueue>();
  auto wake = session.waker();
  auto child = process::ChildProcess::spawn(
      {*argv, *env, {}},
      [events, wake](std::string_view stream, std::string line) {
        events->push({false, std::string(stream), std::move(line), {}});
        wake();
      },
      [events, wake](process::ProcessExit exit) {
        events->push({true, "", "", exit});
        wake();
      },
      {}, &command_output_reader());
  if (!child) return failed("cannot start the command `" + describe(*argv) + "`: " + child.error().message);
  const CloseWhenDone close_events{events};  // destroyed before `child`
  print_line(stdout, "volador-worker: running `" + describe(*argv) + "`");

  std::string last_error_line;
  for (;;) {
    for (auto& event : events->take()) {
      if (event.exited) {
        child->reset();  // joins the reader thread, which has finished
        end_leftovers(launch.kill_grace);
        const auto& exit = event.exit;
        if (exit.signal == 0 && exit.exit_code == 0) {
          if (auto saved = save_checkpoint(session, launch, request, *checkpoints, ""); !saved)
            return failed("cannot save the checkpoint folder at the command's exit: " + saved.error().message);
          return std::optional(wire::WorkloadResult{{}, request.start_batch, ""});
        }
        auto why = exit.signal != 0 ? fmt::format("the command was killed by signal {}", exit.signal)
                                    : fmt::format("the command exited with code {}", exit.exit_code);
        if (!last_error_line.empty()) why += ": " + last_error_line;
        if (container_limits)
          if (auto breach = container_limit_breach(*container_limits)) why = *breach;
        return failed(why);
      }
      if (event.stream == "stderr") {
        print_line(stderr, event.line);
        if (event.line.find_first_not_of(" \t\r") != std::string::npos) last_error_line = event.line;
        continue;
      }
      print_line(stdout, event.line);
      auto report = read_report(event.line, *pattern, launch);
      if (report && report->kind == wire::ReportKind::checkpoint) {
        if (auto saved = save_checkpoint(session, launch, request, *checkpoints, report->checkpoint); !saved) {
          process::terminate_descendants(launch.kill_grace, (*child)->pid());
          return failed("cannot save the checkpoint: " + saved.error().message);
        }
      } else if (report && launch.hello.rank == 0) {
        session.report(*report);
      }
    }
    auto stop = session.wait_for_stop();
    if (!stop) return fail(stop.error());  // the child dies with this object
    if (*stop) {
      print_line(stdout, "volador-worker: stopped by the trial; ending the command");
      process::terminate_descendants(launch.kill_grace, (*child)->pid());
      return std::optional<wire::WorkloadResult>();
    }
  }
}

// Runs each `run` workload until the trial is done with this rank, stops it, or the master is lost.
Result<CommandEnd> serve_runs(const WorkerLaunch& launch, JoinedTrial& joined, const std::vector<std::string>& argv) {
  std::uint16_t master_port = 0;
  if (launch.world_size > 1) {
    auto port = agree_on_master_port(joined, launch.hello.rank);
    if (!port) return fail(port.error());
    master_port = *port;
  }
  auto& session = *joined.session;
  for (;;) {
    auto request = session.next_workload();
    if (!request) return fail(request.error());
    if (!*request) return CommandEnd::done;
    if ((*request)->kind != wire::WorkloadKind::run) {
      session.complete({{}, (*request)->start_batch, "a command trial runs only `run` workloads"});
      continue;
    }
    auto outcome = run_command(session, launch, **request, argv, master_port);
    if (!outcome) return fail(outcome.error());
    if (!*outcome) return CommandEnd::stopped;
    auto flushed = session.flush_reports();  // the run's answer follows the trial's journal of every report
    if (!flushed) return fail(flushed.error());
    if (*flushed) return CommandEnd::stopped;
    session.complete(**outcome);
  }
}

}  // namespace

void prepare_command_worker(std::chrono::milliseconds kill_grace) {
  // Orphans of the command's tree become the worker's children, however they detach, so all can be ended.
  if (auto reaper = process::become_subreaper(); !reaper) print_line(stderr, "volador-worker: " + reaper.error().message);
  // On SIGTERM (its agent stopping it) every process the command started ends too, then the worker.
  auto notice = fmt::format("volador-worker: stopped: ending the command's processes (SIGKILL after {} ms)",
                            kill_grace.count());
  if (auto watched = process::end_descendants_on_sigterm(kill_grace, std::move(notice)); !watched)
    print_line(stderr, "volador-worker: " + watched.error().message);
}

Result<CommandEnd> serve_command(const WorkerLaunch& launch, JoinedTrial& joined, const std::vector<std::string>& argv) {
  auto served = serve_runs(launch, joined, argv);
  process::terminate_descendants(launch.kill_grace);  // nothing the command started outlives its trial
  return served;
}

}  // namespace volador::worker
