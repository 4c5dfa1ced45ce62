#include "actors/agent_actor.hpp"

#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <thread>

#include "actors/atoms.hpp"
#include "actors/caf_error.hpp"
#include "actors/agent_limits.hpp"
#include "actors/image_ranks.hpp"
#include "actors/master_context.hpp"
#include "actors/worker_sandbox.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/core/states.hpp"
#include "runtime/net/remote.hpp"
#include "runtime/command/entrypoint.hpp"
#include "runtime/node/timings_file.hpp"
#include "runtime/tls/rank_identity_folders.hpp"
#include "runtime/wire/codec.hpp"
#include "runtime/worker/agent_channel.hpp"
#include "runtime/worker/container_limits.hpp"
#include "runtime/worker/trial_file.hpp"
#include "storage/archives/archive.hpp"

namespace volador::actors {
namespace {

using Self = AgentActor::stateful_pointer<AgentState>;
namespace fs = std::filesystem;

constexpr auto kFlushInterval = std::chrono::milliseconds(100);
// A worker's output: what its trial's log may take, what the agent holds
// while the master is away or slow, and what one message carries at most.
constexpr trial_output::OutputLimits kOutputLimits{};
constexpr std::uint64_t kMaxBufferedOutput = 16ull << 20;
constexpr std::uint64_t kMaxShippedOutput = 1ull << 20;
// After a worker's SIGTERM, the grace its trial allows its processes and this
// long for the worker to end them, before the agent SIGKILLs the worker.
constexpr auto kWorkerStopMargin = std::chrono::seconds(5);
// The worker's timings, beside its trial file.
constexpr const char* kTimingsFileName = "volador-timings.conf";

std::string hostname() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

// NAME=VALUE entries of the config's environment_variables.
void add_user_environment(const std::vector<std::string>& entries, std::map<std::string, std::string>& env) {
  for (const auto& entry : entries) {
    auto eq = entry.find('=');
    if (eq != std::string::npos) env[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
}

bool is_python_trial(const wire::LaunchSpec& spec) {
  auto entrypoint = command::classify_entrypoint(spec.entrypoint);
  return entrypoint && std::holds_alternative<command::PythonTrialEntrypoint>(*entrypoint);
}

// A Python worker finds the volador package and the native module first, then the user's PYTHONPATH.
void add_python_environment(std::map<std::string, std::string>& env) {
#ifdef VOLADOR_WORKER_PYTHONPATH
  const std::string ours = VOLADOR_WORKER_PYTHONPATH;
  auto user = env.find("PYTHONPATH");
  env["PYTHONPATH"] = user == env.end() || user->second.empty() ? ours : ours + ":" + user->second;
#endif
  env["PYTHONUNBUFFERED"] = "1";  // output reaches the trial log line by line
}

// The rank sees its slot's GPU alone (by UUID, so device numbering cannot
// mislead it), and a CPU slot sees none, whatever the user's variables say.
void bind_to_slot(const wire::SlotSpec& slot, std::map<std::string, std::string>& env) {
  env["CUDA_VISIBLE_DEVICES"] = slot.device_uuid;
  env["VOLADOR_SLOT_TYPE"] = lowercase_name(slot.type);
}

// The master as this agent's workers reach it: the launch names the address the master listens on, maybe 0.0.0.0.
std::string master_address(const AgentOptions& options, const wire::LaunchSpec& spec) {
  return options.master_endpoint ? options.master_endpoint->to_string()
                                 : spec.master_host + ":" + std::to_string(spec.master_port);
}

// The worker's environment: the user's variables, then Volador's own (which win).
std::map<std::string, std::string> worker_environment(const AgentOptions& options, const wire::LaunchSpec& spec) {
  std::map<std::string, std::string> env;
  add_user_environment(spec.environment_variables, env);
  if (is_python_trial(spec)) add_python_environment(env);
  bind_to_slot(options.slots.at(spec.slot), env);
  env["VOLADOR_MASTER"] = master_address(options, spec);
  if (!options.advertise.empty()) env["VOLADOR_ADVERTISE"] = options.advertise;
  env["VOLADOR_TRIAL_ID"] = std::to_string(spec.trial_id);
  env["VOLADOR_EXPERIMENT_ID"] = std::to_string(spec.experiment_id);
  env["VOLADOR_RUN_ID"] = std::to_string(spec.run_id);
  env["VOLADOR_RANK"] = std::to_string(spec.rank);
  env["VOLADOR_WORLD_SIZE"] = std::to_string(spec.world_size);
  env["VOLADOR_LOCAL_RANK"] = std::to_string(spec.local_rank);
  env["VOLADOR_LOCAL_SIZE"] = std::to_string(spec.local_size);
  env["VOLADOR_NODE_INDEX"] = std::to_string(spec.node_index);
  env["VOLADOR_NODE_COUNT"] = std::to_string(spec.node_count);
  env["VOLADOR_TOKEN"] = spec.token;
  env["VOLADOR_HPARAMS"] = spec.hparams_json;
  env["VOLADOR_TRIAL_FILE"] = worker::kTrialFileName;
  env["VOLADOR_TIMINGS_FILE"] = kTimingsFileName;
  add_sandbox_environment(options, spec, env);
  return env;
}

// Makes the working folder `dir` afresh: the unpacked model definition plus the trial and timings files.
Result<sandbox::PreparedFolder> fresh_folder(const AgentOptions& options, const wire::LaunchSpec& spec, const fs::path& dir) {
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (auto s = archives::unpack_archive(spec.archive, dir); !s) return fail(s.error());
  if (auto s = worker::write_trial_file(spec, dir); !s) return fail(s.error());
  if (auto s = node::write_timings_file(options.timings, dir / kTimingsFileName); !s) return fail(s.error());
  auto contents = sandbox::FolderSnapshot::take(dir);
  if (!contents) return fail(contents.error());
  return sandbox::PreparedFolder{dir, sandbox::archive_key(spec.archive), std::move(*contents)};
}

// Prepares the working folder of worker `worker` in its `home`: its last
// clean folder when it holds the same model definition untouched (only the
// trial file rewritten), else a fresh one.
Result<sandbox::PreparedFolder> prepare_folder(AgentState& state, const wire::LaunchSpec& spec, std::uint64_t worker,
                                               const fs::path& home) {
  auto dir = rank_folder(home, spec.trial_id, spec.run_id, spec.rank);
  auto spare = state.work_folders.reuse(worker, sandbox::archive_key(spec.archive), dir);
  if (!spare) return fresh_folder(state.options, spec, dir);
  if (auto s = worker::write_trial_file(spec, dir); !s) return fail(s.error());
  if (auto s = spare->contents.refresh(dir, worker::kTrialFileName); !s) return fail(s.error());
  return std::move(*spare);
}

// startup-hook.sh runs first, in the worker's shell, then the worker replaces it.
constexpr const char* kHook = "if [ -f ./startup-hook.sh ]; then . ./startup-hook.sh || exit $?; fi; ";

// The worker's shell command: the Python worker module under the configured
// interpreter for a Python trial, volador-worker for everything else.
std::vector<std::string> worker_command(const AgentOptions& options, const wire::LaunchSpec& spec) {
  if (is_python_trial(spec))
    return {"/bin/sh", "-c", std::string(kHook) + "exec \"$0\" -m volador.worker_main", options.python_program.string()};
  return {"/bin/sh", "-c", std::string(kHook) + "exec \"$0\"", options.worker_program.string()};
}

// What a warm worker of `spec` may be reused for; nullopt for a Python trial,
// which runs one process per trial, and an image's (its container holds no channel to the agent).
std::optional<WorkerReuseKey> warm_key(const AgentOptions& options, const wire::LaunchSpec& spec) {
  if (is_python_trial(spec) || !spec.image.empty()) return std::nullopt;
  return reuse_key(spec, master_address(options, spec));
}

// Ends an idle worker: SIGTERM (SIGKILL after its grace); its exit is awaited, then ignored.
void end_idle(Self self, std::uint64_t id) {
  auto& st = self->state;
  st.idle.forget(id);
  auto it = st.idle_processes.find(id);
  if (it == st.idle_processes.end()) return;
  it->second.process->terminate();
  st.ending[id] = std::move(it->second.process);
  st.idle_processes.erase(it);
}

// Worker `id` running a launch on `slot`: its trial's lines go to `output`,
// which `route` gave before the worker could see the trial (a warm worker may
// finish a short trial, and `route` move on, before the hand-over returns).
AgentState::Worker running_worker(std::uint64_t id, std::shared_ptr<trial_output::WorkerOutput> output,
                                  std::shared_ptr<OutputRoute> route, std::unique_ptr<process::ChildProcess> process,
                                  std::uint32_t slot, std::optional<WorkerReuseKey> reuse) {
  AgentState::Worker worker;
  worker.id = id;
  worker.output = std::move(output);
  worker.route = std::move(route);
  worker.process = std::move(process);
  worker.slot = slot;
  worker.reuse = std::move(reuse);
  return worker;
}

// How worker process `id` runs: its command, the cgroups it joins before it
// runs anything, and for an image rank what its container leaves behind.
struct ContainedCommand {
  std::vector<std::string> argv;
  std::vector<fs::path> join_cgroups;
  std::optional<ImageRankRemains> remains;
};

// Worker process `id` for `spec` in `dir`: in its sandbox, joining the
// rank's cgroup, or in a container of its image (whose limits go to its
// runtime; `env` gets the limits its worker watches).
Result<ContainedCommand> contained_command(Self self, std::uint64_t id, const wire::LaunchSpec& spec, const fs::path& dir,
                                           std::map<std::string, std::string>& env) {
  auto& st = self->state;
  const auto home = worker_home(st.options, id);
  if (!spec.image.empty()) {
    auto limits = resolved_rank_limits(st, spec);
    if (!limits) return fail(limits.error());
    if (limits->memory_bytes > 0) env[worker::kContainerMemoryVariable] = std::to_string(limits->memory_bytes);
    if (limits->max_processes > 0) env[worker::kContainerProcessVariable] = std::to_string(limits->max_processes);
    auto argv = image_rank_command(st.options, spec, id, home, dir, kHook, is_python_trial(spec), *limits, env);
    if (!argv) return fail(argv.error());
    return ContainedCommand{std::move(*argv), {}, image_rank_remains(st.options, id, *limits)};
  }
  auto cgroup = limit_rank(st, id, spec);
  if (!cgroup) return fail(cgroup.error());
  auto argv = sandboxed_command(st.options, spec, home, dir, worker_command(st.options, spec), env);
  if (!argv) return fail(argv.error());
  return ContainedCommand{std::move(*argv), std::move(*cgroup), std::nullopt};
}

// Starts worker process `id` for `spec` in `dir`, contained; a warm one gets its channel to the agent.
Result<AgentState::Worker> spawn_worker(Self self, std::uint64_t id, const wire::LaunchSpec& spec, const fs::path& dir,
                                        std::map<std::string, std::string> env, std::optional<WorkerReuseKey> reuse) {
  const auto& work_dir = self->state.options.work_dir;
  auto tls_dir = tls::install_rank_identity(spec.rank_certificate, spec.rank_private_key, self->state.options.worker_tls_dir,
                                            work_dir, id);
  if (!tls_dir) return fail(Error{tls_dir.error().code, "the rank's identity: " + tls_dir.error().message});
  env["VOLADOR_TLS_DIR"] = tls_dir->string();  // the worker's own identity, never the agent's
  auto route = std::make_shared<OutputRoute>(kOutputLimits, kMaxBufferedOutput, system_now_ms);
  auto output = route->current();  // the first trial's
  auto agent = AgentActor(self);
  auto on_line = [route](std::string_view stream, std::string line) { route->add(stream, std::move(line)); };
  auto command = contained_command(self, id, spec, dir, env);
  const auto remains = command ? command->remains : std::nullopt;
  auto on_exit = [agent, id, work_dir, sandboxed = contained(self->state.options, spec), remains](process::ProcessExit exit) {
    std::string reason;
    if (remains) {  // before the rank's end is reported
      reason = image_rank_end_reason(*remains, exit);
      remove_image_rank(*remains);
    }
    tls::remove_rank_identity(work_dir, id);
    exit = worker_exit(sandboxed, exit);
    wire::WorkerExit report{0, 0, 0, exit.exit_code, exit.signal, reason};
    caf::anon_send(agent, exited_atom::value, id, wire::encode(report));
  };
  auto on_message = [agent, id, route](process::Message message) {
    route->next();  // the finished trial's last line came before this message
    caf::anon_send(agent, idle_atom::value, id, wire::Bytes(message.begin(), message.end()));
  };
  const auto stop_grace = std::chrono::milliseconds(spec.kill_grace_period_ms) + kWorkerStopMargin;
  process::ProcessSpec process_spec{command ? std::move(command->argv) : std::vector<std::string>{}, std::move(env), dir,
                                    stop_grace, reuse ? worker::kAgentChannelVariable : ""};
  if (command) process_spec.join_cgroups = std::move(command->join_cgroups);
  auto child = command ? process::ChildProcess::spawn(process_spec, on_line, on_exit, on_message) : fail(command.error());
  if (!child) {
    tls::remove_rank_identity(work_dir, id);
    std::error_code ec;
    if (remains) fs::remove_all(remains->auth_folder, ec);
    release_worker(self->state, id);
    return fail(child.error());
  }
  const auto& slot = self->state.options.slots[spec.slot];
  spdlog::info("trial {} run {} rank {}: worker pid {} on slot {} ({}{}) in {}", spec.trial_id, spec.run_id, spec.rank,
               (*child)->pid(), spec.slot, lowercase_name(slot.type), slot.device_uuid.empty() ? "" : " " + slot.device_uuid,
               dir.string());
  return running_worker(id, std::move(output), std::move(route), std::move(*child), spec.slot, std::move(reuse));
}

// Hands `spec`'s launch to the idle worker `id`; nullopt (and the worker ended) when it does not take it.
std::optional<AgentState::Worker> hand_over(Self self, std::uint64_t id, const wire::LaunchSpec& spec, const fs::path& dir,
                                            const std::map<std::string, std::string>& env, WorkerReuseKey reuse) {
  auto& st = self->state;
  auto it = st.idle_processes.find(id);
  if (it == st.idle_processes.end()) return std::nullopt;
  if (!limit_rank(st, id, spec)) {  // a new worker will say why
    end_idle(self, id);
    return std::nullopt;
  }
  auto worker_env = env;  // the warm worker keeps the identity it was started with
  worker_env["VOLADOR_TLS_DIR"] = tls::rank_identity_folder(st.options.work_dir, id).string();
  const auto view = worker_view(st.options, spec, worker_home(st.options, id), dir);
  const auto bytes = wire::encode(wire::WorkerAssignment{view.string(), worker::to_environment_list(worker_env)});
  auto output = it->second.route->current();  // before the worker sees the trial: its lines go there
  if (auto sent = it->second.process->send_message(process::Message(bytes.begin(), bytes.end())); !sent) {
    spdlog::warn("trial {} run {} rank {}: idle worker pid {} did not take the launch ({}); starting a new one",
                 spec.trial_id, spec.run_id, spec.rank, it->second.process->pid(), sent.error().message);
    end_idle(self, id);
    return std::nullopt;
  }
  spdlog::info("trial {} run {} rank {}: handed to idle worker pid {} on slot {} in {}", spec.trial_id, spec.run_id,
               spec.rank, it->second.process->pid(), spec.slot, dir.string());
  auto worker = running_worker(id, std::move(output), std::move(it->second.route), std::move(it->second.process), spec.slot,
                               std::move(reuse));
  st.idle_processes.erase(it);
  return worker;
}

// The worker for `spec`: the slot's idle worker when it may take it, else a
// new process; the trial's folder goes in that worker's home.
Result<AgentState::Worker> worker_for(Self self, const wire::LaunchSpec& spec) {
  auto& st = self->state;
  auto env = worker_environment(st.options, spec);
  auto reuse = warm_key(st.options, spec);
  if (reuse) {
    const auto claim = st.idle.claim(*reuse);
    if (claim.end) end_idle(self, *claim.end);
    if (claim.reuse) {
      auto folder = prepare_folder(st, spec, *claim.reuse, worker_home(st.options, *claim.reuse));
      if (!folder) {
        end_idle(self, *claim.reuse);
        return fail(folder.error());
      }
      const auto dir = folder->path;
      if (auto warm = hand_over(self, *claim.reuse, spec, dir, env, *reuse)) {
        warm->folder = std::move(*folder);
        return std::move(*warm);
      }
      std::error_code ec;
      fs::remove_all(dir, ec);  // the worker that did not take it is gone, or ends
    }
  }
  const auto id = ++st.last_worker_id;
  auto home = fresh_worker_home(st.options, id);
  auto folder = home ? prepare_folder(st, spec, id, *home) : fail(home.error());
  if (!folder) return fail(folder.error());
  auto worker = spawn_worker(self, id, spec, folder->path, std::move(env), std::move(reuse));
  if (worker) worker->folder = std::move(*folder);
  return worker;
}

// Tells the master's pool about the work disk: one that refuses trials is given none.
void report_work_disk(Self self, const wire::WorkDiskReport& disk) {
  auto& st = self->state;
  if (!st.master) return;  // the registration will carry it
  self->send(caf::actor_cast<GatewayActor>(st.master), work_disk_atom::value, wire::encode(disk));
  work_disk_reported(st, disk, system_now_ms());
}

using WorkerIt = std::map<RankKey, AgentState::Worker>::iterator;

// Starts `spec`'s rank worker for `trial` on its slot, which no rank holds.
Status start_rank(Self self, const wire::LaunchSpec& spec, const caf::actor& trial) {
  auto worker = worker_for(self, spec);
  if (!worker) return fail(worker.error());
  worker->trial = caf::actor_cast<TrialActor>(trial);
  worker->exit_carries_output = spec.exit_carries_output;
  self->state.workers[{spec.trial_id, spec.run_id, spec.rank}] = std::move(*worker);
  return {};
}

// The rank process that holds `slot` (running a trial, or finishing one), if any.
std::optional<WorkerIt> slot_holder(Self self, std::uint32_t slot) {
  auto& workers = self->state.workers;
  auto it = std::ranges::find_if(workers, [&](const auto& entry) {
    return entry.second.slot == slot && entry.second.process && !entry.second.exit_report;
  });
  return it == workers.end() ? std::nullopt : std::optional(it);
}

// Starts the launch waiting first for `slot` once no rank holds it, and answers it.
void start_waiting_launch(Self self, std::uint32_t slot) {
  auto& st = self->state;
  if (slot_holder(self, slot)) return;
  const auto ticket = st.slot_waits.next(slot, system_now_ms());
  if (!ticket) return;
  auto waiting = st.waiting_launches.extract(*ticket);
  auto& launch = waiting.mapped();
  if (auto started = start_rank(self, launch.spec, launch.trial); !started)
    launch.reply.deliver(to_caf_error(started.error()));
  else
    launch.reply.deliver(std::string());
}

// Kills the ranks that held their slot past the patience of the launch waiting for it.
void kill_overdue_slot_holders(Self self) {
  for (auto slot : self->state.slot_waits.overdue(system_now_ms())) {
    auto holder = slot_holder(self, slot);
    if (!holder) continue;
    auto& [key, worker] = **holder;
    spdlog::warn("trial {} run {} rank {}: still holds slot {} that the next launch waits for; killing it",
                 std::get<0>(key), std::get<1>(key), std::get<2>(key), slot);
    worker.stopping = true;
    worker.process->kill();
  }
}

// Answers every waiting launch matching `which` with `why`, and forgets it.
template <class Predicate>
void drop_waiting_launches(Self self, Predicate which, const std::string& why) {
  auto& st = self->state;
  for (auto it = st.waiting_launches.begin(); it != st.waiting_launches.end();) {
    if (!which(it->second.spec)) {
      ++it;
      continue;
    }
    st.slot_waits.cancel(it->first, system_now_ms());
    it->second.reply.deliver(to_caf_error(Error::unavailable(why)));
    it = st.waiting_launches.erase(it);
  }
}

// Starts `bytes`' rank worker: "" once started (after the rank still holding
// its slot let it go); the agent's reason to start no trial now (told to the
// pool first, so the trial goes elsewhere); an error when it failed.
caf::result<std::string> launch(Self self, const wire::Bytes& bytes, caf::actor trial) {
  auto& st = self->state;
  auto spec = wire::decode<wire::LaunchSpec>(bytes);
  if (!spec) return to_caf_error(spec.error());
  if (spec->slot >= st.options.slots.size())
    return to_caf_error(Error::invalid_argument(fmt::format("slot {} of agent {}: it has {} slots", spec->slot,
                                                            st.options.agent_id, st.options.slots.size())));
  if (auto disk = work_disk(st); !disk.refusal.empty()) {
    report_work_disk(self, disk);
    return disk.refusal;
  }
  if (slot_holder(self, spec->slot)) {
    const auto patience = std::chrono::milliseconds(spec->kill_grace_period_ms) + kWorkerStopMargin;
    const auto ticket = st.slot_waits.wait(spec->slot, system_now_ms(), patience.count());
    auto reply = self->make_response_promise<std::string>();
    st.waiting_launches.emplace(ticket, AgentState::WaitingLaunch{std::move(*spec), std::move(trial), reply});
    return reply;
  }
  if (auto started = start_rank(self, *spec, trial); !started) return to_caf_error(started.error());
  return std::string();
}

void report_when_shipped(Self self, WorkerIt it);

// The trial answered log message `ticket` (its lines are journaled), or the
// request failed (`error`): its place in the window is free. An ended rank
// ships on at once; a running one at the next flush, so messages stay large.
void on_log_answered(Self self, std::uint64_t ticket, const caf::error& error = {}) {
  auto rank = self->state.log_window.answered(ticket);
  if (!rank) return;  // sent to a master lost since
  auto it = self->state.workers.find(*rank);
  if (it == self->state.workers.end()) return;  // reported ended: its trial may have ended without answering
  if (error)
    spdlog::warn("trial {} run {} rank {}: a message of its output went unanswered ({}); shipping on",
                 std::get<0>(*rank), std::get<1>(*rank), std::get<2>(*rank), self->system().render(error));
  if (it->second.exit_report) report_when_shipped(self, it);
}

// Ships up to kMaxShippedOutput of the worker's output (one message) when its
// window has room; false when nothing was shipped.
bool ship_output(Self self, const RankKey& key, AgentState::Worker& worker) {
  auto& window = self->state.log_window;
  if (!worker.trial || !window.has_room(key)) return false;  // kept until a trial adopts the worker, or answers
  auto lines = worker.output->take(kMaxShippedOutput);
  if (lines.empty()) return false;
  wire::LogLines logs{std::get<0>(key), std::get<1>(key), std::move(lines)};
  const auto ticket = window.sent(key, system_now_ms());
  // No timeout of CAF's (each costs its clock thread wake-ups): the flush expires unanswered messages.
  self->request(worker.trial, caf::infinite, log_atom::value, wire::encode(logs))
      .then([=](bool) { on_log_answered(self, ticket); },
            [=](const caf::error& error) { on_log_answered(self, ticket, error); });
  return true;
}

// Whether an ended rank's last lines go in its exit report: its trial takes
// them there, and they fit one message.
bool output_fits_exit(const AgentState::Worker& worker) {
  return worker.exit_report && worker.exit_carries_output && worker.output->buffered_bytes() <= kMaxShippedOutput;
}

// Puts the rest of an ended rank's output in its exit report.
void add_output_to_exit(AgentState::Worker& worker) {
  auto exit = wire::decode<wire::WorkerExit>(*worker.exit_report);
  if (!exit) return;
  exit->output = worker.output->take(kMaxShippedOutput);
  worker.exit_report = wire::encode(*exit);
}

// Messages of output left unanswered for the timings' log_timeout free their
// places (LogWindow::expire); their ranks ship on at this flush.
void expire_unanswered_output(Self self) {
  auto& st = self->state;
  for (const auto& rank : st.log_window.expire(system_now_ms(), st.options.timings.log_timeout.count()))
    if (st.workers.contains(rank))
      spdlog::warn("trial {} run {} rank {}: a message of its output went unanswered for {} ms; shipping on",
                   std::get<0>(rank), std::get<1>(rank), std::get<2>(rank), st.options.timings.log_timeout.count());
}

// Ships what the worker's window lets go; once an ended rank's last line
// went, its exit report follows (after its lines: messages to the trial
// arrive in order), with its last lines when its trial takes them there,
// and the agent forgets it.
void report_when_shipped(Self self, WorkerIt it) {
  auto& worker = it->second;
  while (!output_fits_exit(worker) && ship_output(self, it->first, worker)) {
  }
  if (!worker.trial || !worker.exit_report) return;
  if (output_fits_exit(worker) && worker.output->buffered_bytes() > 0) add_output_to_exit(worker);
  if (worker.output->buffered_bytes() > 0) return;
  self->send(worker.trial, exited_atom::value, *worker.exit_report);
  self->state.workers.erase(it);  // joins the reader thread, which has finished
}

void ship_all_output(Self self) {
  auto& workers = self->state.workers;
  for (auto it = workers.begin(); it != workers.end();) report_when_shipped(self, it++);
}

// The rank `report` names ended (its process exited, or a warm worker finished
// it): its last lines, then the report, go to its trial, or wait for a trial
// to adopt it while the master is away.
void on_rank_end(Self self, const wire::Bytes& bytes) {
  auto report = wire::decode<wire::WorkerExit>(bytes);
  if (!report) return;
  auto it = self->state.workers.find({report->trial_id, report->run_id, report->rank});
  if (it == self->state.workers.end()) return;
  rank_folder_ended(self->state, it->second, *report);
  it->second.output->finish();
  it->second.exit_report = bytes;
  report_when_shipped(self, it);
}

// The busy worker whose process is `id` (not the ended rank of a warm worker,
// still shipping its lines, whose process went on to another trial).
WorkerIt find_worker(Self self, std::uint64_t id) {
  auto& workers = self->state.workers;
  return std::find_if(workers.begin(), workers.end(),
                      [&](const auto& entry) { return entry.second.id == id && entry.second.process; });
}

// Worker process `id` ended: the end of its trial's rank if it was running one; an idle one is forgotten.
void on_process_exit(Self self, std::uint64_t id, const wire::Bytes& bytes) {
  auto& st = self->state;
  const auto limit_breach = release_worker(st, id);  // the killed: reason, if it broke a limit
  if (st.ending.erase(id) > 0) return;
  if (st.idle.forget(id)) {
    st.idle_processes.erase(id);
    return;
  }
  auto it = find_worker(self, id);
  if (it == st.workers.end() || !it->second.process) return;  // its trial's end was reported when it finished it
  auto report = wire::decode<wire::WorkerExit>(bytes);
  if (!report) return;
  std::tie(report->trial_id, report->run_id, report->rank) = it->first;
  if (limit_breach && (report->exit_code != 0 || report->signal != 0)) report->message = *limit_breach;
  const auto slot = it->second.slot;
  on_rank_end(self, wire::encode(*report));
  start_waiting_launch(self, slot);
}

// A warm worker finished its trial (WorkerFinished): a clean end of that rank;
// the worker waits idle for its next launch, or is ended when it may not take
// one. A launch that waited for the slot is handed over first: the next trial
// waits for it, not for the ended rank's last lines and exit report, which follow.
void on_finished(Self self, std::uint64_t id, const wire::Bytes& bytes) {
  auto& st = self->state;
  auto finished = wire::decode<wire::WorkerFinished>(bytes);
  auto it = finished ? st.workers.find({finished->trial_id, finished->run_id, finished->rank}) : st.workers.end();
  if (it == st.workers.end() || it->second.id != id || !it->second.process) {
    if (auto stray = find_worker(self, id); stray != st.workers.end() && stray->second.process) stray->second.process->terminate();
    return;
  }
  auto& worker = it->second;
  const auto slot = worker.slot;
  if (worker.reuse && !worker.stopping && st.master) {
    if (auto displaced = st.idle.park(id, *worker.reuse, system_now_ms())) end_idle(self, *displaced);
    st.idle_processes[id] = {worker.route, std::move(worker.process)};
  } else {
    worker.process->terminate();
    st.ending[id] = std::move(worker.process);
  }
  const wire::WorkerExit clean{finished->trial_id, finished->run_id, finished->rank, 0, 0, ""};
  rank_folder_ended(st, worker, clean);  // its clean folder may serve the worker's next trial
  start_waiting_launch(self, slot);
  on_rank_end(self, wire::encode(clean));
}

// Idle workers past the idle limit are ended.
void end_expired_idle(Self self) {
  for (auto id : self->state.idle.expire(system_now_ms())) end_idle(self, id);
}

// Stops the workers of `trial_id` whose run matches `run` (every run: nullopt): SIGTERM, SIGKILL after their grace.
void kill_trial(Self self, std::uint64_t trial_id, std::optional<std::uint32_t> run) {
  const auto of_run = [&](std::uint64_t trial, std::uint32_t run_id) { return trial == trial_id && (!run || run_id == *run); };
  for (auto& [key, worker] : self->state.workers)
    if (of_run(std::get<0>(key), std::get<1>(key))) {
      worker.stopping = true;
      if (worker.process) worker.process->terminate();
    }
  drop_waiting_launches(
      self, [&](const wire::LaunchSpec& spec) { return of_run(spec.trial_id, spec.run_id); },
      "the trial was stopped before its rank started");
}

// A restarted trial took the run's workers back: they report to it now,
// output kept meanwhile first, and the exit of any that ended meanwhile.
void adopt_workers(Self self, std::uint64_t trial_id, std::uint32_t run_id, const caf::actor& trial) {
  auto& workers = self->state.workers;
  for (auto it = workers.begin(); it != workers.end();) {
    auto adopted = it++;
    if (std::get<0>(adopted->first) != trial_id || std::get<1>(adopted->first) != run_id) continue;
    adopted->second.trial = caf::actor_cast<TrialActor>(trial);
    adopted->second.exit_carries_output = false;  // a restarted master may not take lines in an exit report
    report_when_shipped(self, adopted);
  }
}

// Registers with the current master. A refusal (the name is taken, or its
// identity may not register: a rank's) ends the agent; an answer from a master already gone is ignored, and a master that
// does not answer is asked again.
void register_with_master(Self self) {
  auto& st = self->state;
  wire::AgentInfo info{st.options.agent_id, hostname(), st.options.slots, {}, st.options.pool, st.options.labels};
  for (const auto& [key, worker] : st.workers)
    if (!worker.exit_report) info.workers.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), worker.slot});
  describe_rank_limits(st, info);
  info.container_runtime = st.options.containers.runtime;
  const auto disk = work_disk(st);
  info.work_disk_free_bytes = disk.free_bytes;
  info.work_disk_refusal = disk.refusal;
  work_disk_reported(st, disk, system_now_ms());
  auto master = st.master;
  self->request(master, st.options.timings.register_timeout, register_atom::value, wire::encode(info), caf::actor_cast<caf::actor>(self))
      .then([=](bool) { spdlog::info("agent {} registered with {} slots", self->state.options.agent_id, self->state.options.slots.size()); },
            [=](const caf::error& error) {
              if (!net::same_object(self->state.master, master)) return;  // a gateway given up since
              const auto why = from_caf_error(error);
              // Refused for good: its name is taken, its pool is not the cluster's, or it may not register.
              if (why.code != ErrorCode::already_exists && why.code != ErrorCode::invalid_argument &&
                  why.code != ErrorCode::permission_denied)
                return register_with_master(self);
              spdlog::error("agent {}: registration refused: {}", self->state.options.agent_id, why.message);
              self->quit(error);
            });
}

// Looks for the master on a thread of its own (connecting blocks) and hands
// it to the agent, or makes the agent quit after the reconnect patience; it
// stops looking once the agent ended (stopped meanwhile), so the agent's
// process is not held until the patience runs out. `lost`, the gateway of
// the connection that died, does not count.
void reconnect(Self self, const net::Endpoint& endpoint, caf::actor lost) {
  auto agent = AgentActor(self);
  const auto patience = self->state.options.timings.reconnect_patience;
  self->spawn([agent, endpoint, lost, patience, agent_ended = self->state.ended](caf::blocking_actor* finder) {
    const auto deadline = std::chrono::steady_clock::now() + patience;
    auto master = net::await_master(finder->home_system(), endpoint, deadline, lost, [&] { return agent_ended->load(); });
    if (master) return finder->send(agent, reconnected_atom::value, *master);
    finder->send_exit(agent, caf::sec::remote_linking_failed);
  });
}

void on_master_lost(Self self, const caf::error& reason) {
  auto& st = self->state;
  if (!st.options.master_endpoint) {
    spdlog::error("agent {}: lost the master; killing its workers", st.options.agent_id);
    st.workers.clear();
    st.idle.take_all();
    st.idle_processes.clear();
    st.ending.clear();
    return self->quit(caf::sec::remote_linking_failed);
  }
  spdlog::warn("agent {}: lost the master ({}); keeping {} worker(s) running while reconnecting to {}", st.options.agent_id,
               self->system().render(reason), st.workers.size(), st.options.master_endpoint->to_string());
  auto lost = std::exchange(st.master, nullptr);
  for (auto& [key, worker] : st.workers) worker.trial = nullptr;
  drop_waiting_launches(self, [](const wire::LaunchSpec&) { return true; }, "the agent lost the master");
  st.log_window.forget_all();  // the lines out to it are lost with it
  for (auto id : st.idle.take_all()) end_idle(self, id);
  self->delayed_send(self, st.options.timings.master_outage_patience, orphaned_atom::value, ++st.outages);
  reconnect(self, *st.options.master_endpoint, std::move(lost));
}

// The master is back: watch it and register again, with the surviving workers.
void on_reconnected(Self self, caf::actor master) {
  auto& st = self->state;
  st.master = std::move(master);
  self->monitor(st.master);
  register_with_master(self);
}

// Still no master (or a master that did not claim them) after the outage
// patience: the workers of that outage are given up.
void on_orphaned(Self self, std::uint32_t outage) {
  auto& st = self->state;
  if (outage != st.outages) return;
  std::erase_if(st.workers, [](const auto& entry) { return !entry.second.trial && entry.second.exit_report; });
  for (auto& [key, worker] : st.workers) {
    if (worker.trial || !worker.process) continue;
    spdlog::warn("agent {}: nobody claimed trial {} run {} rank {}; killing it", st.options.agent_id, std::get<0>(key),
                 std::get<1>(key), std::get<2>(key));
    worker.process->kill();
  }
}

}  // namespace

AgentActor::behavior_type agent_actor(Self self, AgentOptions options, caf::actor master) {
  self->state.options = std::move(options);
  self->attach_functor([ended = self->state.ended] { *ended = true; });
  tls::remove_rank_identities(self->state.options.work_dir);  // an earlier agent's workers are gone
  self->state.idle = IdleWorkers(self->state.options.timings.warm_worker_idle.count());
  open_rank_limits(self->state);
  open_work_folders(self->state);
  self->set_down_handler([=](const caf::down_msg& down) {
    if (self->state.master && down.source == self->state.master.address()) on_master_lost(self, down.reason);
  });
  on_reconnected(self, std::move(master));
  self->send(self, flush_atom::value);
  return {
      [=](flush_atom) {
        expire_unanswered_output(self);
        ship_all_output(self);
        end_expired_idle(self);
        kill_overdue_slot_holders(self);
        enforce_rank_limits(self->state);
        self->state.work_folders.reap(system_now_ms());
        if (auto disk = work_disk(self->state); work_disk_report_due(self->state, disk, system_now_ms()))
          report_work_disk(self, disk);
        self->delayed_send(self, kFlushInterval, flush_atom::value);
      },
      [=](launch_atom, const wire::Bytes& bytes, caf::actor trial) { return launch(self, bytes, std::move(trial)); },
      [=](kill_atom, std::uint64_t trial_id) { kill_trial(self, trial_id, std::nullopt); },
      [=](kill_atom, std::uint64_t trial_id, std::uint32_t run_id) { kill_trial(self, trial_id, run_id); },
      [=](adopt_atom, std::uint64_t trial_id, std::uint32_t run_id, const caf::actor& trial) {
        adopt_workers(self, trial_id, run_id, trial);
      },
      [=](exited_atom, std::uint64_t id, const wire::Bytes& bytes) { on_process_exit(self, id, bytes); },
      [=](idle_atom, std::uint64_t id, const wire::Bytes& bytes) { on_finished(self, id, bytes); },
      [=](reconnected_atom, caf::actor& master) { on_reconnected(self, std::move(master)); },
      [=](orphaned_atom, std::uint32_t outage) { on_orphaned(self, outage); },
  };
}

}  // namespace volador::actors
