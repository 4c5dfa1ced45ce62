#pragma once
// The `volador` client's verbs. Each prints its result (a table, or JSON with
// `json`) to stdout and returns the process exit status: 0 success, 1 failure
// (the reason printed to stderr as one line), 2 the experiment ended other
// than COMPLETED (create --follow). Without a valid login token the one line
// is "volador: not logged in to MASTER: run 'volador user login NAME'".

#include <cstdint>
#include <string>

#include "runtime/cli/master_client.hpp"

namespace volador::cli {

struct CreateOptions {
  std::string config_path;
  std::string model_dir;
  bool follow = false;
  bool json = false;
};

// Validates the config locally first, so a bad file fails without a master.
int create_experiment(const net::Endpoint& master, const std::filesystem::path& bundle, const std::string& token,
                      const master::Timings& timings, const CreateOptions& options);
// Which experiments `experiment list` shows: archived ones only with `all`;
// an empty label, workspace or project selects any.
struct ExperimentSelection {
  bool all = false;
  std::string label;
  std::string workspace;
  std::string project;
  [[nodiscard]] bool keeps(const wire::ExperimentSummary& experiment) const;
};
int list_experiments(MasterClient& client, const ExperimentSelection& selection, bool json);
int describe_experiment(MasterClient& client, std::uint64_t id, bool json);
// Each metric series cut to at most `max_points` points (0: every point).
int describe_trial(MasterClient& client, std::uint64_t id, std::uint32_t max_points, bool json);
// Trials of one experiment, or of every experiment (experiment_id 0).
int list_trials(MasterClient& client, std::uint64_t experiment_id, bool json);
// Registered agents: host, slots, used slots and the trials using them.
int list_agents(MasterClient& client, bool json);
// Every agent's slots, one row each: free or the trial using it.
int list_slots(MasterClient& client, bool json);
// `volador pool list`: each resource pool's capacity, use and queue (--json: the PoolList's records).
int list_pools(MasterClient& client, bool json);
// pause / activate / kill / archive / unarchive an experiment, or kill a trial; prints what was done.
int change_state(MasterClient& client, const std::string& verb, const std::string& what, std::uint64_t id);
int list_checkpoints(MasterClient& client, std::uint64_t experiment_id, std::uint64_t trial_id, bool json);
// Copies a checkpoint from the shared file system into `dir`, verifying every byte.
int download_checkpoint(MasterClient& client, const std::string& uuid, const std::string& dir);
struct LogsOptions {
  std::uint64_t tail = 0;  // the last lines shown first
  bool all = false;        // every line from the first instead
  bool follow = false;     // then keep printing until the trial ends
  bool json = false;       // one JSON array of the lines, or with `follow` one JSON object per line (JSON Lines)
};

// Prints the trial's last `tail` lines (or `all`), saying on stderr how to
// see more when there are more; with `follow`, keeps printing what comes
// until the trial ends. Constant memory whatever the log's length.
int trial_logs(MasterClient& client, std::uint64_t id, const LogsOptions& options);

// Prints `error` as the verbs do (one line on stderr) and returns 1.
int report(const Error& error);

}  // namespace volador::cli
