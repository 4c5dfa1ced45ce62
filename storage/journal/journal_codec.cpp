#include "storage/journal/journal_codec.hpp"

#include <cstring>
#include <utility>

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <kj/exception.h>

#include "schemas/journal.capnp.h"
#include "storage/journal/journal_keys.hpp"
#include "storage/journal/journal_validation.hpp"

namespace volador::storage::codec {
namespace {

namespace schema = volador::journal_schema;

static_assert(static_cast<int>(RunState::active) == static_cast<int>(schema::RunState::ACTIVE));
static_assert(static_cast<int>(RunState::paused) == static_cast<int>(schema::RunState::PAUSED));
static_assert(static_cast<int>(RunState::completed) == static_cast<int>(schema::RunState::COMPLETED));
static_assert(static_cast<int>(RunState::canceled) == static_cast<int>(schema::RunState::CANCELED));
static_assert(static_cast<int>(RunState::error) == static_cast<int>(schema::RunState::ERROR));
static_assert(static_cast<int>(CheckpointState::active) == static_cast<int>(schema::CheckpointState::ACTIVE));
static_assert(static_cast<int>(CheckpointState::deleted) == static_cast<int>(schema::CheckpointState::DELETED));

capnp::Text::Reader text(const std::string& s) { return {s.data(), s.size()}; }
std::string str(capnp::Text::Reader t) { return {t.begin(), t.size()}; }
std::vector<std::string> strings(capnp::List<capnp::Text>::Reader list) {
  std::vector<std::string> out;
  for (auto t : list) out.push_back(str(t));
  return out;
}

// Encodes one record; `fill` sets the fields of the root builder.
template <class Schema, class Fill>
Result<Words> encode(std::string_view what, Fill fill) {
  try {
    capnp::MallocMessageBuilder message;
    fill(message.initRoot<Schema>());
    return capnp::messageToFlatArray(message);
  } catch (const kj::Exception& e) {
    return fail(Error::invalid_argument("cannot encode " + std::string(what) + ": " + e.getDescription().cStr()));
  }
}

// Decodes the value stored under `key`; `convert` turns the root reader into
// a Result<Record>. Traversal is limited to the value's own size (no pointer
// amplification), nesting to what the schema needs.
template <class Schema, class Convert>
auto decode(std::string_view key, std::string_view value, Convert convert)
    -> decltype(convert(std::declval<typename Schema::Reader>())) {
  constexpr std::size_t word = sizeof(capnp::word);
  if (value.empty() || value.size() % word != 0) {
    return fail(corrupt(key, std::to_string(value.size()) + " bytes is not a whole number of words"));
  }
  auto words = kj::heapArray<capnp::word>(value.size() / word);
  std::memcpy(words.begin(), value.data(), value.size());
  capnp::ReaderOptions options;
  options.traversalLimitInWords = words.size() + 8;
  options.nestingLimit = 8;
  try {
    capnp::FlatArrayMessageReader reader(words, options);
    if (reader.getEnd() != words.end()) return fail(corrupt(key, "trailing bytes after the message"));
    return convert(reader.getRoot<Schema>());
  } catch (const kj::Exception& e) {
    return fail(corrupt(key, e.getDescription().cStr()));
  }
}

Result<RunState> to_run_state(schema::RunState state, std::string_view key) {
  const auto value = static_cast<std::uint16_t>(state);
  if (value > static_cast<std::uint16_t>(schema::RunState::ERROR)) {
    return fail(corrupt(key, "unknown run state " + std::to_string(value)));
  }
  return static_cast<RunState>(value);
}

Result<nlohmann::json> parse_json(capnp::Text::Reader json_text, std::string_view key) {
  auto json = nlohmann::json::parse(json_text.begin(), json_text.end(), nullptr, false);
  if (json.is_discarded()) return fail(corrupt(key, "invalid JSON"));
  return json;
}

void set_metrics(capnp::List<schema::Metric>::Builder list, const MetricMap& metrics) {
  unsigned i = 0;
  for (const auto& [name, value] : metrics) {
    list[i].setName(text(name));
    list[i++].setValue(value);
  }
}

MetricMap metric_map(capnp::List<schema::Metric>::Reader list) {
  MetricMap metrics;
  for (auto metric : list) metrics.emplace(str(metric.getName()), metric.getValue());
  return metrics;
}

}  // namespace

std::string_view bytes_of(const Words& words) { return {words.asChars().begin(), words.asChars().size()}; }

Error corrupt(std::string_view key, std::string_view why) {
  return Error::corruption("journal record " + keys::describe(key) + " is corrupt: " + std::string(why));
}

Result<Words> encode_experiment(const ExperimentRecord& r) {
  return encode<schema::Experiment>("experiment " + std::to_string(r.id), [&](schema::Experiment::Builder b) {
    b.setId(r.id);
    b.setName(text(r.name));
    b.setConfigYaml(text(r.config_yaml));
    b.setConfigFileName(text(r.config_file_name));
    b.setState(static_cast<schema::RunState>(r.state));
    b.setExperimentSeed(r.experiment_seed);
    b.setProgress(r.progress);
    b.setErrorMessage(text(r.error_message));
    b.setCreatedAtMs(r.created_at_ms);
    b.setEndedAtMs(r.ended_at_ms);
  });
}

Result<ExperimentRecord> decode_experiment(std::string_view key, std::string_view value) {
  return decode<schema::Experiment>(key, value, [&](schema::Experiment::Reader m) -> Result<ExperimentRecord> {
    if (m.getId() != keys::trailing_id(key)) return fail(corrupt(key, "holds experiment " + std::to_string(m.getId())));
    auto state = to_run_state(m.getState(), key);
    if (!state) return fail(state.error());
    return ExperimentRecord{.id = m.getId(),
                            .name = str(m.getName()),
                            .config_yaml = str(m.getConfigYaml()),
                            .config_file_name = str(m.getConfigFileName()),
                            .state = *state,
                            .experiment_seed = m.getExperimentSeed(),
                            .progress = m.getProgress(),
                            .error_message = str(m.getErrorMessage()),
                            .created_at_ms = m.getCreatedAtMs(),
                            .ended_at_ms = m.getEndedAtMs()};
  });
}

Result<Words> encode_trial(const TrialRecord& r) {
  auto hparams = validation::hparams_text(r);
  if (!hparams) return fail(hparams.error());
  return encode<schema::Trial>("trial " + std::to_string(r.id), [&](schema::Trial::Builder b) {
    b.setId(r.id);
    b.setExperimentId(r.experiment_id);
    b.setRequestId(r.request_id);
    b.setHparamsJson(text(*hparams));
    b.setSeed(r.seed);
    b.setState(static_cast<schema::RunState>(r.state));
    b.setBatchesTrained(r.batches_trained);
    b.setRestarts(r.restarts);
    b.setRunId(r.run_id);
    b.setErrorMessage(text(r.error_message));
    b.setCreatedAtMs(r.created_at_ms);
    b.setEndedAtMs(r.ended_at_ms);
    b.setRunToken(text(r.run_token));
    auto agents = b.initRunAgents(static_cast<unsigned>(r.run_agents.size()));
    for (unsigned i = 0; i < agents.size(); ++i) agents.set(i, text(r.run_agents[i]));
  });
}

Result<TrialRecord> decode_trial(std::string_view key, std::string_view value) {
  return decode<schema::Trial>(key, value, [&](schema::Trial::Reader m) -> Result<TrialRecord> {
    if (m.getId() != keys::trailing_id(key)) return fail(corrupt(key, "holds trial " + std::to_string(m.getId())));
    auto state = to_run_state(m.getState(), key);
    if (!state) return fail(state.error());
    auto hparams = parse_json(m.getHparamsJson(), key);
    if (!hparams) return fail(hparams.error());
    return TrialRecord{.id = m.getId(),
                       .experiment_id = m.getExperimentId(),
                       .request_id = m.getRequestId(),
                       .hparams = std::move(*hparams),
                       .seed = m.getSeed(),
                       .state = *state,
                       .batches_trained = m.getBatchesTrained(),
                       .restarts = m.getRestarts(),
                       .run_id = m.getRunId(),
                       .error_message = str(m.getErrorMessage()),
                       .created_at_ms = m.getCreatedAtMs(),
                       .ended_at_ms = m.getEndedAtMs(),
                       .run_token = str(m.getRunToken()),
                       .run_agents = strings(m.getRunAgents())};
  });
}

Result<Words> encode_metrics(const MetricRecord& r) {
  return encode<schema::MetricReport>("metrics of trial " + std::to_string(r.trial_id),
                                      [&](schema::MetricReport::Builder b) {
    b.setTrialId(r.trial_id);
    b.setKind(r.kind == MetricKind::training ? schema::MetricKind::TRAINING : schema::MetricKind::VALIDATION);
    b.setBatches(r.batches);
    b.setReportedAtMs(r.reported_at_ms);
    set_metrics(b.initMetrics(static_cast<unsigned>(r.metrics.size())), r.metrics);
  });
}

Result<MetricRecord> decode_metrics(std::string_view key, std::string_view value) {
  return decode<schema::MetricReport>(key, value, [&](schema::MetricReport::Reader m) -> Result<MetricRecord> {
    return MetricRecord{.trial_id = m.getTrialId(),
                        .kind = m.getKind() == schema::MetricKind::TRAINING ? MetricKind::training
                                                                            : MetricKind::validation,
                        .batches = m.getBatches(),
                        .metrics = metric_map(m.getMetrics()),
                        .reported_at_ms = m.getReportedAtMs()};
  });
}

Result<Words> encode_log(const LogLine& l) {
  return encode<schema::LogLine>("log line of trial " + std::to_string(l.trial_id), [&](schema::LogLine::Builder b) {
    b.setTrialId(l.trial_id);
    b.setSeq(l.seq);
    b.setTimeMs(l.time_ms);
    b.setStream(text(l.stream));
    b.setText(text(l.text));
  });
}

Result<LogLine> decode_log(std::string_view key, std::string_view value) {
  return decode<schema::LogLine>(key, value, [&](schema::LogLine::Reader m) -> Result<LogLine> {
    return LogLine{.trial_id = m.getTrialId(),
                   .seq = m.getSeq(),
                   .time_ms = m.getTimeMs(),
                   .stream = str(m.getStream()),
                   .text = str(m.getText())};
  });
}

Result<Words> encode_archive(std::uint64_t experiment_id, std::string_view bytes) {
  return encode<schema::Archive>("archive of experiment " + std::to_string(experiment_id),
                                 [&](schema::Archive::Builder b) {
    b.setBytes({reinterpret_cast<const kj::byte*>(bytes.data()), bytes.size()});
  });
}

Result<std::string> decode_archive(std::string_view key, std::string_view value) {
  return decode<schema::Archive>(key, value, [&](schema::Archive::Reader m) -> Result<std::string> {
    auto bytes = m.getBytes().asChars();
    return std::string(bytes.begin(), bytes.size());
  });
}

Result<Words> encode_searcher_state(std::uint64_t experiment_id, const nlohmann::json& state) {
  auto json = validation::searcher_state_text(experiment_id, state);
  if (!json) return fail(json.error());
  return encode<schema::SearcherState>("searcher state of experiment " + std::to_string(experiment_id),
                                       [&](schema::SearcherState::Builder b) { b.setJson(text(*json)); });
}

Result<nlohmann::json> decode_searcher_state(std::string_view key, std::string_view value) {
  return decode<schema::SearcherState>(key, value, [&](schema::SearcherState::Reader m) {
    return parse_json(m.getJson(), key);
  });
}

Result<Words> encode_counter(std::string_view name, std::uint64_t value) {
  return encode<schema::Counter>("counter " + std::string(name),
                                 [&](schema::Counter::Builder b) { b.setValue(value); });
}

Result<std::uint64_t> decode_counter(std::string_view key, std::string_view value) {
  return decode<schema::Counter>(key, value,
                                 [](schema::Counter::Reader m) -> Result<std::uint64_t> { return m.getValue(); });
}

Result<Words> encode_checkpoint(const CheckpointRecord& r) {
  if (auto valid = validation::check_checkpoint(r); !valid) return fail(valid.error());
  return encode<schema::Checkpoint>("checkpoint " + r.uuid, [&](schema::Checkpoint::Builder b) {
    b.setUuid(text(r.uuid));
    b.setExperimentId(r.experiment_id);
    b.setTrialId(r.trial_id);
    b.setBatches(r.batches);
    b.setRunId(r.run_id);
    set_metrics(b.initValidationMetrics(static_cast<unsigned>(r.validation_metrics.size())), r.validation_metrics);
    b.setState(static_cast<schema::CheckpointState>(r.state));
    b.setTotalBytes(r.total_bytes);
    b.setCreatedAtMs(r.created_at_ms);
    b.setScheduled(r.scheduled);
  });
}

Result<CheckpointRecord> decode_checkpoint(std::string_view key, std::string_view value) {
  return decode<schema::Checkpoint>(key, value, [&](schema::Checkpoint::Reader m) -> Result<CheckpointRecord> {
    std::string uuid = str(m.getUuid());
    if (key != keys::checkpoint(uuid)) return fail(corrupt(key, "holds checkpoint " + uuid));
    const auto state = static_cast<std::uint16_t>(m.getState());
    if (state > static_cast<std::uint16_t>(schema::CheckpointState::DELETED)) {
      return fail(corrupt(key, "unknown checkpoint state " + std::to_string(state)));
    }
    return CheckpointRecord{.uuid = std::move(uuid),
                            .experiment_id = m.getExperimentId(),
                            .trial_id = m.getTrialId(),
                            .batches = m.getBatches(),
                            .run_id = m.getRunId(),
                            .validation_metrics = metric_map(m.getValidationMetrics()),
                            .state = static_cast<CheckpointState>(state),
                            .total_bytes = m.getTotalBytes(),
                            .created_at_ms = m.getCreatedAtMs(),
                            .scheduled = m.getScheduled()};
  });
}

}  // namespace volador::storage::codec
