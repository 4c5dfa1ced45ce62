#pragma once
// A throw-away cluster for end-to-end tests: a master and an agent as two
// volador-node processes on loopback, a temporary data folder, and a way to
// run the `volador` client and capture what it prints. On a network-namespace
// lab (tests/netns) the master runs on host 0, listening on every interface,
// agents on the other hosts, and the client on host 0.

#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <sys/types.h>

#include <nlohmann/json.hpp>

#include "runtime/process/child_process.hpp"

namespace volador::testing {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
  // What it printed, as JSON; where that is not JSON (the command failed) the
  // test fails naming the exit status and stderr, not a parser's position.
  [[nodiscard]] nlohmann::json json() const;
};

// Runs a program to completion (bounded by `timeout_s`) and captures its
// output; `env` is added to its environment.
CommandResult run_command(std::vector<std::string> argv, int timeout_s = 120,
                          const std::map<std::string, std::string>& env = {});

// A fresh folder, removed at the end (kept, and named on stderr, when
// VOLADOR_KEEP_TEST_DIRS is set: for looking into a failure).
class TempDir {
 public:
  TempDir();
  ~TempDir();
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

class NetnsLab;

class Cluster {
 public:
  explicit Cluster(const std::filesystem::path& data_dir);
  // The usual test cluster: start_master(), then start_agent(agent_slots).
  Cluster(const std::filesystem::path& data_dir, std::uint32_t agent_slots);
  // A cluster spread over `lab`'s hosts, which must outlive it.
  Cluster(const std::filesystem::path& data_dir, const NetnsLab& lab);
  ~Cluster();

  // Adds `args` to the command line of every volador-node it starts from now
  // on (master and agents), e.g. {"--timings", FILE}.
  void add_node_arguments(const std::vector<std::string>& args);
  // Starts the master on a free port the first time, on the same port later;
  // `extra` arguments are added to its command line (e.g. {"--cluster-config", FILE}).
  void start_master(const std::vector<std::string>& extra = {});
  // SIGTERM; true when the master exited by itself within `patience_s` (else it is killed).
  bool stop_master(int patience_s = 10);
  void kill_master();  // SIGKILL, as if its host died
  // Starts the agent and waits until the master has registered its slots;
  // `extra` arguments and `env` variables are added to its command line and environment.
  void start_agent(std::uint32_t slots, const std::vector<std::string>& extra = {},
                   const std::map<std::string, std::string>& env = {});
  void kill_agent();  // SIGKILL, as if its host died
  // Starts one more agent on this host, `name` (its own bundle and work
  // folder DATA/work-NAME, `extra` arguments such as {"--pool", "spare"}),
  // and waits until the master has registered it.
  void start_named_agent(const std::string& name, std::uint32_t slots, const std::vector<std::string>& extra = {});
  // On a lab: starts agent `name` on host `host` (its own bundle and work
  // folder DATA/work-NAME; `advertise` its --advertise when not empty) and
  // waits until the master has registered it.
  void start_agent_on(int host, const std::string& name, std::uint32_t slots, const std::string& advertise = "");
  [[nodiscard]] pid_t master_pid() const;
  [[nodiscard]] pid_t agent_pid() const;  // the usual agent's
  // What the master and agents this cluster started have printed so far (DATA/nodes.log).
  [[nodiscard]] std::string nodes_log() const;
  [[nodiscard]] const std::string& master_address() const { return address_; }
  // The client's certificate, written by the master on its first start.
  [[nodiscard]] std::filesystem::path admin_bundle() const { return data_dir_ / "tls" / "admin.bundle"; }

  // The first admin's password, written by the master on its first start.
  [[nodiscard]] std::string admin_password() const;
  // The environment of a client logged in as the admin: VOLADOR_TOKEN (the
  // token of one `volador user login admin`, made at the first call) and a
  // HOME of its own under the data folder.
  [[nodiscard]] std::map<std::string, std::string> admin_environment() const;

  // `volador -m ADDRESS --bundle ADMIN_BUNDLE args...`, logged in as the admin (admin_environment).
  CommandResult cli(std::vector<std::string> args, int timeout_s = 120) const;
  // The same with the client's environment `env` (e.g. {"HOME": ...} of another user, or no VOLADOR_TOKEN).
  CommandResult cli_with(const std::map<std::string, std::string>& env, std::vector<std::string> args,
                         const std::string& stdin_file = "", int timeout_s = 120) const;

 private:
  // volador-node ARGS, on lab host `host` when on a lab.
  // `exited`, when given, becomes true once the process has ended.
  std::unique_ptr<process::ChildProcess> spawn_node(std::vector<std::string> args, int host = 0,
                                                    const std::map<std::string, std::string>& env = {},
                                                    std::shared_ptr<std::atomic<bool>> exited = nullptr);
  // Starts an agent process and waits until it registered; the process.
  std::unique_ptr<process::ChildProcess> start_agent_process(std::vector<std::string> args, const std::string& name,
                                                             int host, const std::map<std::string, std::string>& env = {});

  std::filesystem::path data_dir_;
  const NetnsLab* lab_ = nullptr;
  std::vector<std::string> node_arguments_;
  std::map<std::string, std::unique_ptr<process::ChildProcess>> lab_agents_;
  std::map<std::string, std::unique_ptr<process::ChildProcess>> named_agents_;  // on this host
  std::string address_;
  std::unique_ptr<process::ChildProcess> master_;
  std::shared_ptr<std::atomic<bool>> master_exited_;
  std::unique_ptr<process::ChildProcess> agent_;
  mutable std::string admin_token_;  // once logged in
};

std::filesystem::path binary(const std::string& name);

// A bundle for `node` from a cluster CA made in `data_dir` (as a master's first start makes it).
std::filesystem::path issue_test_bundle(const std::filesystem::path& data_dir, const std::string& node);

// A single trial named `name` running command `entrypoint` (metric accuracy,
// larger is better, 10 batches, no restart), with `rest` appended.
std::string single_command_config(const std::string& name, const std::string& entrypoint, const std::string& rest = "");

// Writes PROJECT with `trials` command trials run one after the other (a
// grid), each printing "slot-type TYPE" (the kind of slot it got) and then
// waiting until the file `gate` exists before it reports; `rest` is appended
// to its distributed.yaml (e.g. resources).
void write_gated_project(const std::filesystem::path& project, const std::filesystem::path& gate, int trials,
                         const std::string& rest = "");

// The native example (examples/native_mlp) as one trial of fixed
// hyperparameters, seeded; `rest` adds what each test sets (periods,
// restarts, the searcher and its length, resources).
std::string native_trial_config(const std::string& name, const std::string& rest);

// Submits PROJECT (with its distributed.yaml) and follows it to the end:
// the CLI's `experiment create --follow --json`.
CommandResult create_and_follow(const Cluster& cluster, const std::filesystem::path& project, int timeout_s = 120);
// The same with CONFIG from anywhere and PROJECT as the project folder.
CommandResult create_and_follow(const Cluster& cluster, const std::filesystem::path& config,
                                const std::filesystem::path& project, int timeout_s = 120);
// Submits PROJECT without following; the experiment id (the test fails when refused).
std::string submit(const Cluster& cluster, const std::filesystem::path& project);
// The same after writing `config` as PROJECT's distributed.yaml.
std::string submit(const Cluster& cluster, const std::filesystem::path& project, const std::string& config);
nlohmann::json describe_experiment(const Cluster& cluster, const std::string& id);
// The experiment's checkpoints, as `checkpoint list ID --json` lists them.
nlohmann::json checkpoints(const Cluster& cluster, const std::string& id);

// A startup hook that SIGKILLs its worker once, `delay_s` seconds after a
// checkpoint is committed in the folder named by KILL_STORAGE: only where the
// environment names a marker file in KILL_ONCE, only while that file does not
// exist (the hook creates it), and only where the shell test `only_if` holds.
// Waiting for the checkpoint rather than for a time makes the kill land
// mid-training however fast the machine is (the trial must run on well after it).
std::string kill_once_hook(const std::string& only_if = "true", double delay_s = 0);
// The config lines that arm kill_once_hook: an environment of
// `other_variables` (comma-separated NAME=VALUE, may be empty), its marker
// file and `storage`, and `storage` (created here) as the checkpoint storage
// the hook watches. The marker goes in MARKER.d/, created here and bind-mounted
// into the ranks' sandboxes.
std::string kill_once_config(const std::filesystem::path& marker, const std::filesystem::path& storage,
                             const std::string& other_variables = "");

// A trial's reports by (kind, batches), each once (checked), with the metrics
// as the master stores them: compared as JSON, so bit for bit.
using MetricHistory = std::map<std::pair<std::string, std::uint64_t>, nlohmann::json>;
MetricHistory metric_history(const Cluster& cluster, const std::string& trial_id);

// A trial's validation reports, in order, as `trial describe --json` lists them.
std::vector<nlohmann::json> validations(const Cluster& cluster, const std::string& trial_id);
// Checks that `run` validated as `reference` did up to data-parallel
// rounding: at the same batches, accuracy to 1e-6, loss to 1e-4 relative.
void check_same_validations(const std::vector<nlohmann::json>& run, const std::vector<nlohmann::json>& reference);

// Processes whose working folder lies under `dir` (rank workers and their
// commands; of a sandboxed rank, the sandbox's outer bwrap, which lives as
// long as anything inside it).
std::size_t processes_under(const std::filesystem::path& dir);
// Those of an agent working in `work_dir` started in a trial folder whose
// name begins with `prefix` ("trial-7-run-1-"), in any worker's folder.
std::size_t processes_in_trial_folders(const std::filesystem::path& work_dir, const std::string& prefix);

// A timings file in `dir` with which the client gives up on a master it
// cannot reach after 500 ms (`volador --timings FILE`), not 3 s.
std::filesystem::path short_client_timings(const std::filesystem::path& dir);

// Node arguments with which nodes drop a peer silent for 2 s (heartbeats
// every 100 ms), the rest of their timings the defaults; the file goes in `dir`.
std::vector<std::string> short_link_timings(const std::filesystem::path& dir);

// The pid of a process whose command line has every one of `arguments`, or 0.
pid_t pid_with_arguments(const std::vector<std::string>& arguments);

// The port of HOST:PORT.
std::uint16_t port_of(const std::string& address);

// Pids of the rank workers whose identity folder is under `dir` (a cluster's
// data folder) and whose environment says they are `rank`, sandboxed or not.
std::vector<pid_t> rank_workers(const std::filesystem::path& dir, int rank);

// Stops process `pid` (SIGSTOP) until `peers` of its peers have closed their
// connections with `port` at one end, read from the kernel's socket table
// (they dropped it: the stall outlasted their connection timeout), then
// resumes it (SIGCONT). False when they had not within 30 s.
bool stall_until_dropped(pid_t pid, std::uint16_t port, std::size_t peers);

// Polls `condition` every 100 ms for up to `timeout_s`; true once it holds.
bool eventually(const std::function<bool()>& condition, int timeout_s = 30);

// Writes `text` to `path` (creating folders).
void write_file(const std::filesystem::path& path, const std::string& text);

}  // namespace volador::testing
