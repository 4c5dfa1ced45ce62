#include "runtime/worker/trial_file.hpp"

#include <optional>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "runtime/core/file_read.hpp"
#include "runtime/core/file_rewrite.hpp"
#include "runtime/core/hex.hpp"
#include "runtime/wire/codec.hpp"

namespace volador::worker {
namespace fs = std::filesystem;
namespace {

// The launch's first workload, as write_trial_file wrote it (its encoding in hex); nullopt when absent.
Result<std::optional<wire::WorkloadRequest>> read_first_workload(const nlohmann::json& trial, const fs::path& path) {
  const auto it = trial.find("first_workload");
  if (it == trial.end()) return std::optional<wire::WorkloadRequest>();
  const auto text = it->is_string() ? from_hex(it->get<std::string>()) : std::nullopt;
  auto request = text ? wire::decode<wire::WorkloadRequest>(wire::Bytes(text->begin(), text->end()))
                      : fail(Error::corruption("not hex"));
  if (!request)
    return fail(Error::corruption("the trial file " + path.string() + " has a bad first_workload: " + request.error().message));
  return std::optional(std::move(*request));
}

// `text` as a JSON string: quoted, escaped; bytes that are not UTF-8 kept
// as they are (the launch's strings are UTF-8: the config is checked where it
// enters), which the reader then refuses.
std::string json_string(std::string_view text) {
  std::string quoted = "\"";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') quoted += {'\\', c};
    else if (byte < 0x20) quoted += fmt::format("\\u{:04x}", byte);
    else quoted += c;
  }
  return quoted + '"';
}

}  // namespace

Status write_trial_file(const wire::LaunchSpec& spec, const fs::path& dir) {
  if (!nlohmann::json::accept(spec.hparams_json))
    return fail(Error::invalid_argument("the launch's hyperparameters are not one JSON value"));
  if (!nlohmann::json::accept(spec.data_json))
    return fail(Error::invalid_argument("the launch's data section is not one JSON value"));
  auto text = fmt::format(R"({{
  "trial_id": {},
  "experiment_id": {},
  "run_id": {},
  "rank": {},
  "world_size": {},
  "local_rank": {},
  "local_size": {},
  "node_index": {},
  "node_count": {},
  "entrypoint": {},
  "hparams": {},
  "seed": {},
  "global_batch_size": {},
  "data": {},
  "restore_path": {},
  "kill_grace_period_ms": {})",
                          spec.trial_id, spec.experiment_id, spec.run_id, spec.rank, spec.world_size, spec.local_rank,
                          spec.local_size, spec.node_index, spec.node_count, json_string(spec.entrypoint),
                          spec.hparams_json, spec.seed, spec.global_batch_size, spec.data_json,
                          json_string(spec.restore_path), spec.kill_grace_period_ms);
  if (spec.first_workload) {
    const auto bytes = wire::encode(*spec.first_workload);
    text += ",\n  \"first_workload\": \"" + to_hex(std::string_view(bytes.data(), bytes.size())) + '"';
  }
  text += "\n}\n";
  return rewrite_file(dir / kTrialFileName, text);
}

Result<TrialFile> read_trial_file(const fs::path& path) {
  const auto text = read_file(path);
  if (!text) return fail(Error::not_found("the trial file: " + text.error().message));
  auto trial = nlohmann::json::parse(*text, nullptr, false);
  if (trial.is_discarded() || !trial.is_object())
    return fail(Error::corruption("the trial file " + path.string() + " is not a JSON object"));
  try {
    TrialFile file;
    auto& spec = file.spec;
    spec.trial_id = trial.at("trial_id").get<std::uint64_t>();
    spec.experiment_id = trial.at("experiment_id").get<std::uint64_t>();
    spec.run_id = trial.at("run_id").get<std::uint32_t>();
    spec.rank = trial.at("rank").get<std::uint32_t>();
    spec.world_size = trial.at("world_size").get<std::uint32_t>();
    spec.local_rank = trial.at("local_rank").get<std::uint32_t>();
    spec.local_size = trial.at("local_size").get<std::uint32_t>();
    spec.node_index = trial.at("node_index").get<std::uint32_t>();
    spec.node_count = trial.at("node_count").get<std::uint32_t>();
    spec.entrypoint = trial.at("entrypoint").get<std::string>();
    file.hparams = std::move(trial.at("hparams"));
    spec.seed = trial.at("seed").get<std::uint32_t>();
    spec.global_batch_size = trial.at("global_batch_size").get<std::uint64_t>();
    file.data = std::move(trial.at("data"));
    spec.restore_path = trial.at("restore_path").get<std::string>();
    spec.kill_grace_period_ms = trial.at("kill_grace_period_ms").get<std::uint64_t>();
    auto first_workload = read_first_workload(trial, path);
    if (!first_workload) return fail(first_workload.error());
    spec.first_workload = std::move(*first_workload);
    return file;
  } catch (const nlohmann::json::exception& e) {
    return fail(Error::corruption("the trial file " + path.string() + " is incomplete: " + e.what()));
  }
}

}  // namespace volador::worker
