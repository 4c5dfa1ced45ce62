#include "runtime/cli/commands.hpp"

#include <fmt/format.h>

#include <iostream>
#include <thread>

#include "runtime/cli/config_file.hpp"
#include "runtime/cli/model_commands.hpp"
#include "runtime/cli/views.hpp"
#include "runtime/config/config_parser.hpp"
#include "runtime/core/states.hpp"
#include "storage/archives/archive.hpp"

namespace volador::cli {
namespace {

constexpr auto kPollInterval = std::chrono::milliseconds(1000);

void print_best(const wire::ExperimentDetail& detail) {
  const auto& e = detail.summary;
  if (!e.best) return;
  for (const auto& t : detail.trials)
    if (t.id == e.best->trial_id)
      std::cout << fmt::format("best trial {}: {} = {:.6g}\nhyperparameters: {}\n", t.id, e.metric, e.best->metric,
                               t.hparams);
}

// Prints log lines as they come: as text; with json, as one JSON array
// (written element by element, so a long log is never held whole) or, when
// following, as one JSON object per line.
class LogPrinter {
 public:
  LogPrinter(bool json, bool follow) : json_(json), array_(json && !follow) {}

  void print(const wire::LogEntry& line) {
    if (!array_) {
      std::cout << (json_ ? nlohmann::json(line).dump() : render_line(line)) << "\n";
      return;
    }
    // As nlohmann::json's dump(2) of the whole array writes it.
    auto element = nlohmann::json(line).dump(2);
    for (std::size_t at = 0; (at = element.find('\n', at)) != std::string::npos; at += 3) element.replace(at, 1, "\n  ");
    std::cout << (printed_any_ ? ",\n  " : "[\n  ") << element;
    printed_any_ = true;
  }
  // Closes the array, if any.
  void finish() {
    if (array_) std::cout << (printed_any_ ? "\n]" : "[]") << "\n";
  }

 private:
  bool json_, array_;
  bool printed_any_ = false;
};

// Polls until the experiment ends, printing a line whenever progress changes.
int follow_experiment(MasterClient& client, std::uint64_t id, bool json) {
  std::string last;
  for (;;) {
    auto detail = client.describe_experiment(id);
    if (!detail) return report(detail.error());
    auto line = progress_line(*detail);
    if (line != last && !json) std::cout << line << std::endl;
    last = line;
    if (is_terminal(detail->summary.state)) {
      if (json) std::cout << nlohmann::json(*detail).dump(2) << "\n";
      else print_best(*detail);
      if (!detail->summary.error.empty()) std::cerr << "error: " << detail->summary.error << "\n";
      return detail->summary.state == RunState::completed ? 0 : 2;
    }
    std::this_thread::sleep_for(kPollInterval);
  }
}

}  // namespace

int report(const Error& error) {
  std::cerr << (error.code == ErrorCode::unauthenticated ? "volador: " : "error: ") << error.message << "\n";
  return 1;
}

int create_experiment(const net::Endpoint& master, const std::filesystem::path& bundle, const std::string& token,
                      const master::Timings& timings, const CreateOptions& options) {
  auto yaml = read_config_file(options.config_path);
  if (!yaml) return report(yaml.error());
  auto parsed = config::parse_experiment_config(*yaml, options.config_path);
  if (auto* errors = std::get_if<std::vector<config::ConfigError>>(&parsed)) {
    std::cerr << config::format_errors(*errors);
    return 1;
  }
  auto archive = archives::pack_directory(options.model_dir);
  if (!archive) return report(archive.error());
  auto client = MasterClient::connect(master, bundle, token, timings);
  if (!client) return report(client.error());
  auto reply = client->create_experiment({*yaml, options.config_path, std::move(*archive)});
  if (!reply) return report(reply.error());
  if (!reply->errors.empty()) {
    for (const auto& e : reply->errors) std::cerr << e << "\n";
    return 1;
  }
  if (options.json && !options.follow) std::cout << nlohmann::json{{"id", reply->experiment_id}}.dump() << "\n";
  if (!options.json) std::cout << "created experiment " << reply->experiment_id << "\n";
  return options.follow ? follow_experiment(*client, reply->experiment_id, options.json) : 0;
}

bool ExperimentSelection::keeps(const wire::ExperimentSummary& experiment) const {
  return (label.empty() || std::ranges::find(experiment.labels, label) != experiment.labels.end()) &&
         (workspace.empty() || experiment.workspace == workspace) && (project.empty() || experiment.project == project);
}

int list_experiments(MasterClient& client, const ExperimentSelection& selection, bool json) {
  auto list = client.list_experiments(selection.all);
  if (!list) return report(list.error());
  std::erase_if(list->experiments, [&](const wire::ExperimentSummary& e) { return !selection.keeps(e); });
  std::cout << (json ? nlohmann::json(list->experiments).dump(2) + "\n" : render_table(*list));
  return 0;
}

int describe_experiment(MasterClient& client, std::uint64_t id, bool json) {
  auto detail = client.describe_experiment(id);
  if (!detail) return report(detail.error());
  auto checkpoints = client.checkpoints(id, 0);
  if (!checkpoints) return report(checkpoints.error());
  std::erase_if(checkpoints->checkpoints, [](const wire::CheckpointInfo& c) { return c.state != CheckpointState::active; });
  if (json) {
    nlohmann::json out = *detail;
    out["checkpoints"] = checkpoints->checkpoints;
    std::cout << out.dump(2) << "\n";
  } else {
    std::cout << render_table(*detail) << "\nCheckpoints:\n" << render_table(*checkpoints);
  }
  return 0;
}

int describe_trial(MasterClient& client, std::uint64_t id, std::uint32_t max_points, bool json) {
  auto detail = client.describe_trial(id, max_points);
  if (!detail) return report(detail.error());
  if (detail->downsampled && !json)
    std::cerr << fmt::format("volador: each metric series cut to at most {} of trial {}'s {} reports (--max-points N, "
                             "--all for every point)\n",
                             max_points, id, detail->total_reports);
  std::cout << (json ? nlohmann::json(*detail).dump(2) + "\n" : render_table(*detail));
  return 0;
}

int change_state(MasterClient& client, const std::string& verb, const std::string& what, std::uint64_t id) {
  Status done = what == "trial"        ? client.kill_trial(id)
                : verb == "pause"      ? client.pause_experiment(id)
                : verb == "activate"   ? client.activate_experiment(id)
                : verb == "archive"    ? client.archive_experiment(id, true)
                : verb == "unarchive"  ? client.archive_experiment(id, false)
                                       : client.kill_experiment(id);
  if (!done) return report(done.error());
  if (verb == "archive" || verb == "unarchive") std::cout << fmt::format("{} {}: {}d\n", what, id, verb);
  else std::cout << fmt::format("{} {}: {} requested\n", what, id, verb);
  return 0;
}

int list_checkpoints(MasterClient& client, std::uint64_t experiment_id, std::uint64_t trial_id, bool json) {
  auto list = client.checkpoints(experiment_id, trial_id);
  if (!list) return report(list.error());
  std::cout << (json ? nlohmann::json(list->checkpoints).dump(2) + "\n" : render_table(*list));
  return 0;
}

int download_checkpoint(MasterClient& client, const std::string& uuid, const std::string& dir) {
  auto found = client.checkpoint(uuid);
  if (!found) return report(found.error());
  if (found->checkpoints.empty()) return report(Error::not_found("no checkpoint " + uuid));
  const auto& c = found->checkpoints.front();
  if (c.path.empty()) return report(Error::not_found("checkpoint " + uuid + " was deleted"));
  // shared_fs: the checkpoint folder is readable here; copy it, verifying every byte.
  if (auto copied = copy_checkpoint(c.path, uuid, dir); !copied) return report(copied.error());
  std::cout << "checkpoint " << uuid << " (trial " << c.trial_id << ", " << c.batches << " batches) -> " << dir << "\n";
  return 0;
}

int trial_logs(MasterClient& client, std::uint64_t id, const LogsOptions& options) {
  auto newest = client.trial_logs(id, 0);
  if (!newest) return report(newest.error());
  const std::uint64_t total = newest->last_seq;
  std::uint64_t after = options.all || total <= options.tail ? 0 : total - options.tail;
  if (after > 0)
    std::cerr << fmt::format("volador: the last {} of trial {}'s {} lines (--tail N for more, --all for every line)\n",
                             options.tail, id, total);
  LogPrinter printer(options.json, options.follow);
  // Prints every line after `after`, page by page.
  auto drain = [&]() -> Status {
    for (;;) {
      auto batch = client.trial_logs(id, after);
      if (!batch) return fail(batch.error());
      if (batch->lines.empty()) return {};
      for (const auto& line : batch->lines) {
        printer.print(line);
        after = line.seq;
      }
      std::cout.flush();
    }
  };
  for (;;) {
    if (auto drained = drain(); !drained) return report(drained.error());
    if (!options.follow) break;
    auto trial = client.trial_summary(id);
    if (!trial) return report(trial.error());
    if (is_terminal(trial->state)) {
      // Lines journaled between the last page and the state check.
      if (auto drained = drain(); !drained) return report(drained.error());
      break;
    }
    std::this_thread::sleep_for(kPollInterval);
  }
  printer.finish();
  return 0;
}

int list_trials(MasterClient& client, std::uint64_t experiment_id, bool json) {
  auto list = client.list_trials(experiment_id);
  if (!list) return report(list.error());
  std::cout << (json ? nlohmann::json(list->trials).dump(2) + "\n" : render_table(list->trials));
  return 0;
}

int list_agents(MasterClient& client, bool json) {
  auto list = client.agents();
  if (!list) return report(list.error());
  std::cout << (json ? agents_json(*list).dump(2) + "\n" : render_table(*list));
  return 0;
}

int list_slots(MasterClient& client, bool json) {
  auto list = client.agents();
  if (!list) return report(list.error());
  std::cout << (json ? slots_json(*list).dump(2) + "\n" : render_slots(*list));
  return 0;
}

int list_pools(MasterClient& client, bool json) {
  auto list = client.pools();
  if (!list) return report(list.error());
  std::cout << (json ? nlohmann::json(list->pools).dump(2) + "\n" : render_table(*list));
  return 0;
}

}  // namespace volador::cli
