#include "runtime/cli/lifecycle_commands.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>

#include "runtime/cli/commands.hpp"
#include "runtime/cli/config_file.hpp"
#include "storage/archives/archive.hpp"

namespace volador::cli {
namespace {

// Whether the user answers yes to `question` (asked on stderr, answered on stdin).
bool confirmed(const std::string& question) {
  std::cerr << question << " [y/N] " << std::flush;
  std::string answer;
  std::getline(std::cin, answer);
  return answer == "y" || answer == "Y" || answer == "yes";
}

// An error unless `dir` is missing or an empty folder.
Status check_empty_destination(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec)) return {};
  if (!std::filesystem::is_directory(dir, ec) || !std::filesystem::is_empty(dir, ec))
    return fail(Error::already_exists(dir.string() + " exists and is not an empty folder"));
  return {};
}

int metadata_changed(MasterClient& client, const wire::ExperimentMetadataChange& change, const std::string& what) {
  if (auto done = client.set_experiment_metadata(change); !done) return report(done.error());
  std::cout << fmt::format("experiment {}: {} set\n", change.experiment_id, what);
  return 0;
}

// Submits experiment `id` again with the changes in `changes_path` (empty: none): forked, or `continuing` it.
int submit_again(MasterClient& client, std::uint64_t id, const std::string& changes_path, bool continuing, bool json) {
  wire::ForkExperimentRequest request{.experiment_id = id, .changes_yaml = "", .changes_file_name = changes_path};
  if (!changes_path.empty()) {
    auto changes = read_config_file(changes_path);
    if (!changes) return report(changes.error());
    request.changes_yaml = std::move(*changes);
  }
  auto reply = continuing ? client.continue_experiment(request) : client.fork_experiment(request);
  if (!reply) return report(reply.error());
  if (!reply->errors.empty()) {
    for (const auto& e : reply->errors) std::cerr << e << "\n";
    return 1;
  }
  const std::string how = continuing ? "continued_from" : "forked_from";
  if (json) std::cout << nlohmann::json{{"id", reply->experiment_id}, {how, id}}.dump() << "\n";
  else
    std::cout << fmt::format("created experiment {} ({} experiment {})\n", reply->experiment_id,
                             continuing ? "continuing" : "forked from", id);
  return 0;
}

}  // namespace

int delete_experiment(MasterClient& client, std::uint64_t id, bool yes) {
  if (!yes && !confirmed(fmt::format("delete experiment {} with its trials, metrics, logs and checkpoints?", id))) {
    std::cerr << "volador: experiment " << id << " kept\n";
    return 1;
  }
  if (auto done = client.delete_experiment(id); !done) return report(done.error());
  std::cout << fmt::format("experiment {}: deleted\n", id);
  return 0;
}

int fork_experiment(MasterClient& client, std::uint64_t id, const std::string& changes_path, bool json) {
  return submit_again(client, id, changes_path, false, json);
}

int continue_experiment(MasterClient& client, std::uint64_t id, const std::string& changes_path, bool json) {
  return submit_again(client, id, changes_path, true, json);
}

int download_model_definition(MasterClient& client, std::uint64_t id, const std::string& dir) {
  if (auto empty = check_empty_destination(dir); !empty) return report(empty.error());
  auto definition = client.model_definition(id);
  if (!definition) return report(definition.error());
  if (auto unpacked = archives::unpack_archive(definition->archive, dir); !unpacked) return report(unpacked.error());
  std::cout << fmt::format("experiment {}'s project -> {}\n", id, dir);
  return 0;
}

int set_description(MasterClient& client, std::uint64_t id, const std::string& description) {
  return metadata_changed(client, {.experiment_id = id, .description = description, .labels = {}, .set_labels = false},
                          "description");
}

int set_labels(MasterClient& client, std::uint64_t id, const std::vector<std::string>& labels) {
  return metadata_changed(client, {.experiment_id = id, .description = std::nullopt, .labels = labels, .set_labels = true},
                          "labels");
}

int delete_checkpoint(MasterClient& client, const std::string& uuid) {
  if (auto done = client.delete_checkpoint(uuid); !done) return report(done.error());
  std::cout << fmt::format("checkpoint {}: deleted\n", uuid);
  return 0;
}

}  // namespace volador::cli
