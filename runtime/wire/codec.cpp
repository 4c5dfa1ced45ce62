#include "runtime/wire/codec.hpp"

#include <capnp/message.h>
#include <capnp/schema.h>
#include <capnp/serialize.h>
#include <kj/exception.h>

#include <cstring>
#include <string_view>

#include "schemas/control.capnp.h"

static_assert(static_cast<int>(::WorkloadRequest::Kind::RUN) == static_cast<int>(volador::wire::WorkloadKind::run));
static_assert(static_cast<int>(::MetricReport::Kind::METRICS) == static_cast<int>(volador::wire::ReportKind::metrics));

namespace volador::wire {
namespace {

namespace cp = ::capnp;

std::string text(cp::Text::Reader t) { return {t.cStr(), t.size()}; }

std::string data(cp::Data::Reader d) { return {reinterpret_cast<const char*>(d.begin()), d.size()}; }

cp::Data::Reader as_data(const std::string& s) {
  return {reinterpret_cast<const kj::byte*>(s.data()), s.size()};
}

void write_metrics(const MetricMap& in, cp::List<::MetricEntry>::Builder out) {
  unsigned i = 0;
  for (const auto& [name, value] : in) {
    out[i].setName(name);
    out[i].setValue(value);
    ++i;
  }
}

MetricMap read_metrics(cp::List<::MetricEntry>::Reader in) {
  MetricMap out;
  for (auto e : in) out[text(e.getName())] = e.getValue();
  return out;
}

void write_strings(const std::vector<std::string>& in, cp::List<cp::Text>::Builder out) {
  for (unsigned i = 0; i < in.size(); ++i) out.set(i, in[i]);
}

std::vector<std::string> read_strings(cp::List<cp::Text>::Reader in) {
  std::vector<std::string> out;
  for (auto t : in) out.push_back(text(t));
  return out;
}

// Schema<Message> names the generated struct and converts in both directions.
template <class Message>
struct Schema;

template <>
struct Schema<LogEntry> {
  using Type = ::LogEntry;
  static void write(const LogEntry& m, Type::Builder b) {
    b.setSeq(m.seq);
    b.setTimeMs(m.time_ms);
    b.setStream(m.stream);
    b.setText(m.text);
  }
  static LogEntry read(Type::Reader r) {
    return {r.getSeq(), r.getTimeMs(), text(r.getStream()), text(r.getText())};
  }
};

template <class Element>
void write_list(const std::vector<Element>& in, typename cp::List<typename Schema<Element>::Type>::Builder out) {
  for (unsigned i = 0; i < in.size(); ++i) Schema<Element>::write(in[i], out[i]);
}

template <class Element>
std::vector<Element> read_list(typename cp::List<typename Schema<Element>::Type>::Reader in) {
  std::vector<Element> out;
  out.reserve(in.size());
  for (auto r : in) out.push_back(Schema<Element>::read(r));
  return out;
}

template <>
struct Schema<CreateExperimentRequest> {
  using Type = ::CreateExperimentRequest;
  static void write(const CreateExperimentRequest& m, Type::Builder b) {
    b.setConfigYaml(m.config_yaml);
    b.setConfigFileName(m.config_file_name);
    b.setArchive(as_data(m.archive));
  }
  static CreateExperimentRequest read(Type::Reader r) {
    return {text(r.getConfigYaml()), text(r.getConfigFileName()), data(r.getArchive())};
  }
};

template <>
struct Schema<CreateExperimentReply> {
  using Type = ::CreateExperimentReply;
  static void write(const CreateExperimentReply& m, Type::Builder b) {
    b.setExperimentId(m.experiment_id);
    write_strings(m.errors, b.initErrors(m.errors.size()));
  }
  static CreateExperimentReply read(Type::Reader r) {
    return {r.getExperimentId(), read_strings(r.getErrors())};
  }
};

template <>
struct Schema<TrialSummary> {
  using Type = ::TrialSummary;
  static void write(const TrialSummary& m, Type::Builder b) {
    b.setId(m.id);
    b.setExperimentId(m.experiment_id);
    b.setRequestId(m.request_id);
    b.setState(m.state);
    b.setHparamsJson(m.hparams_json);
    b.setSeed(m.seed);
    b.setBatchesTrained(m.batches_trained);
    b.setRestarts(m.restarts);
    b.setHasBestValidation(m.has_best_validation);
    b.setBestValidation(m.best_validation);
    b.setErrorMessage(m.error_message);
  }
  static TrialSummary read(Type::Reader r) {
    return {r.getId(), r.getExperimentId(), r.getRequestId(), text(r.getState()),
            text(r.getHparamsJson()), r.getSeed(), r.getBatchesTrained(), r.getRestarts(),
            r.getHasBestValidation(), r.getBestValidation(), text(r.getErrorMessage())};
  }
};

template <>
struct Schema<ExperimentSummary> {
  using Type = ::ExperimentSummary;
  static void write(const ExperimentSummary& m, Type::Builder b) {
    b.setId(m.id);
    b.setName(m.name);
    b.setState(m.state);
    b.setProgress(m.progress);
    b.setSearcher(m.searcher);
    b.setMetric(m.metric);
    b.setSmallerIsBetter(m.smaller_is_better);
    b.setNumTrials(m.num_trials);
    b.setHasBestMetric(m.has_best_metric);
    b.setBestMetric(m.best_metric);
    b.setBestTrialId(m.best_trial_id);
    b.setCreatedAtMs(m.created_at_ms);
    b.setEndedAtMs(m.ended_at_ms);
    b.setErrorMessage(m.error_message);
  }
  static ExperimentSummary read(Type::Reader r) {
    return {r.getId(), text(r.getName()), text(r.getState()), r.getProgress(),
            text(r.getSearcher()), text(r.getMetric()), r.getSmallerIsBetter(),
            r.getNumTrials(), r.getHasBestMetric(), r.getBestMetric(), r.getBestTrialId(),
            r.getCreatedAtMs(), r.getEndedAtMs(), text(r.getErrorMessage())};
  }
};

template <>
struct Schema<ExperimentList> {
  using Type = ::ExperimentList;
  static void write(const ExperimentList& m, Type::Builder b) {
    write_list(m.experiments, b.initExperiments(m.experiments.size()));
  }
  static ExperimentList read(Type::Reader r) {
    return {read_list<ExperimentSummary>(r.getExperiments())};
  }
};

template <>
struct Schema<ExperimentDetail> {
  using Type = ::ExperimentDetail;
  static void write(const ExperimentDetail& m, Type::Builder b) {
    Schema<ExperimentSummary>::write(m.summary, b.initSummary());
    b.setDescription(m.description);
    b.setConfigYaml(m.config_yaml);
    write_list(m.trials, b.initTrials(m.trials.size()));
  }
  static ExperimentDetail read(Type::Reader r) {
    return {Schema<ExperimentSummary>::read(r.getSummary()), text(r.getDescription()),
            text(r.getConfigYaml()), read_list<TrialSummary>(r.getTrials())};
  }
};

template <>
struct Schema<MetricPoint> {
  using Type = ::MetricPoint;
  static void write(const MetricPoint& m, Type::Builder b) {
    b.setKind(m.kind);
    b.setBatches(m.batches);
    b.setReportedAtMs(m.reported_at_ms);
    write_metrics(m.metrics, b.initMetrics(m.metrics.size()));
  }
  static MetricPoint read(Type::Reader r) {
    return {text(r.getKind()), r.getBatches(), r.getReportedAtMs(), read_metrics(r.getMetrics())};
  }
};

template <>
struct Schema<TrialDetail> {
  using Type = ::TrialDetail;
  static void write(const TrialDetail& m, Type::Builder b) {
    Schema<TrialSummary>::write(m.summary, b.initSummary());
    write_list(m.metrics, b.initMetrics(m.metrics.size()));
  }
  static TrialDetail read(Type::Reader r) {
    return {Schema<TrialSummary>::read(r.getSummary()), read_list<MetricPoint>(r.getMetrics())};
  }
};

template <>
struct Schema<LogBatch> {
  using Type = ::LogBatch;
  static void write(const LogBatch& m, Type::Builder b) { write_list(m.lines, b.initLines(m.lines.size())); }
  static LogBatch read(Type::Reader r) { return {read_list<LogEntry>(r.getLines())}; }
};

template <>
struct Schema<CheckpointInfo> {
  using Type = ::CheckpointInfo;
  static void write(const CheckpointInfo& m, Type::Builder b) {
    b.setUuid(m.uuid);
    b.setExperimentId(m.experiment_id);
    b.setTrialId(m.trial_id);
    b.setBatches(m.batches);
    b.setState(m.state);
    b.setTotalBytes(m.total_bytes);
    b.setCreatedAtMs(m.created_at_ms);
    write_metrics(m.metrics, b.initMetrics(m.metrics.size()));
    b.setPath(m.path);
  }
  static CheckpointInfo read(Type::Reader r) {
    return {text(r.getUuid()), r.getExperimentId(), r.getTrialId(), r.getBatches(), text(r.getState()),
            r.getTotalBytes(), r.getCreatedAtMs(), read_metrics(r.getMetrics()), text(r.getPath())};
  }
};

template <>
struct Schema<CheckpointList> {
  using Type = ::CheckpointList;
  static void write(const CheckpointList& m, Type::Builder b) {
    write_list(m.checkpoints, b.initCheckpoints(m.checkpoints.size()));
  }
  static CheckpointList read(Type::Reader r) { return {read_list<CheckpointInfo>(r.getCheckpoints())}; }
};

template <>
struct Schema<SlotSpec> {
  using Type = ::SlotSpec;
  static void write(const SlotSpec& m, Type::Builder b) {
    b.setType(m.type);
    b.setDeviceUuid(m.device_uuid);
    b.setModel(m.model);
    b.setMemoryBytes(m.memory_bytes);
  }
  static SlotSpec read(Type::Reader r) {
    return {text(r.getType()), text(r.getDeviceUuid()), text(r.getModel()), r.getMemoryBytes()};
  }
};

template <>
struct Schema<AgentStatus> {
  using Type = ::AgentStatus;
  static void write(const AgentStatus& m, Type::Builder b) {
    b.setAgentId(m.agent_id);
    b.setHostname(m.hostname);
    write_list(m.slots, b.initSlots(m.slots.size()));
    auto trials = b.initSlotTrials(m.slot_trials.size());
    for (unsigned i = 0; i < m.slot_trials.size(); ++i) trials.set(i, m.slot_trials[i]);
  }
  static AgentStatus read(Type::Reader r) {
    AgentStatus m{text(r.getAgentId()), text(r.getHostname()), read_list<SlotSpec>(r.getSlots()), {}};
    for (auto trial : r.getSlotTrials()) m.slot_trials.push_back(trial);
    return m;
  }
};

template <>
struct Schema<AgentList> {
  using Type = ::AgentList;
  static void write(const AgentList& m, Type::Builder b) { write_list(m.agents, b.initAgents(m.agents.size())); }
  static AgentList read(Type::Reader r) { return {read_list<AgentStatus>(r.getAgents())}; }
};

template <>
struct Schema<RunningWorker> {
  using Type = ::RunningWorker;
  static void write(const RunningWorker& m, Type::Builder b) {
    b.setTrialId(m.trial_id);
    b.setRunId(m.run_id);
    b.setRank(m.rank);
    b.setSlot(m.slot);
  }
  static RunningWorker read(Type::Reader r) { return {r.getTrialId(), r.getRunId(), r.getRank(), r.getSlot()}; }
};

template <>
struct Schema<AgentInfo> {
  using Type = ::AgentInfo;
  static void write(const AgentInfo& m, Type::Builder b) {
    b.setAgentId(m.agent_id);
    b.setHostname(m.hostname);
    write_list(m.slots, b.initSlots(m.slots.size()));
    write_list(m.workers, b.initWorkers(m.workers.size()));
  }
  static AgentInfo read(Type::Reader r) {
    return {text(r.getAgentId()), text(r.getHostname()), read_list<SlotSpec>(r.getSlots()),
            read_list<RunningWorker>(r.getWorkers())};
  }
};

template <>
struct Schema<LaunchSpec> {
  using Type = ::LaunchSpec;
  static void write(const LaunchSpec& m, Type::Builder b) {
    b.setTrialId(m.trial_id);
    b.setExperimentId(m.experiment_id);
    b.setRunId(m.run_id);
    b.setRank(m.rank);
    b.setWorldSize(m.world_size);
    b.setEntrypoint(m.entrypoint);
    b.setHparamsJson(m.hparams_json);
    b.setSeed(m.seed);
    b.setGlobalBatchSize(m.global_batch_size);
    b.setDataJson(m.data_json);
    write_strings(m.environment_variables, b.initEnvironmentVariables(m.environment_variables.size()));
    b.setArchive(as_data(m.archive));
    b.setMasterHost(m.master_host);
    b.setMasterPort(m.master_port);
    b.setToken(m.token);
    b.setRestorePath(m.restore_path);
    b.setLocalRank(m.local_rank);
    b.setLocalSize(m.local_size);
    b.setNodeIndex(m.node_index);
    b.setNodeCount(m.node_count);
    b.setSlot(m.slot);
  }
  static LaunchSpec read(Type::Reader r) {
    return {r.getTrialId(),      r.getExperimentId(),
            r.getRunId(),        r.getRank(),
            r.getWorldSize(),    text(r.getEntrypoint()),
            text(r.getHparamsJson()), r.getSeed(),
            r.getGlobalBatchSize(), text(r.getDataJson()),
            read_strings(r.getEnvironmentVariables()), data(r.getArchive()),
            text(r.getMasterHost()), r.getMasterPort(),
            text(r.getToken()),  text(r.getRestorePath()),
            r.getLocalRank(),    r.getLocalSize(),
            r.getNodeIndex(),    r.getNodeCount(),
            r.getSlot()};
  }
};

template <>
struct Schema<WorkerExit> {
  using Type = ::WorkerExit;
  static void write(const WorkerExit& m, Type::Builder b) {
    b.setTrialId(m.trial_id);
    b.setRunId(m.run_id);
    b.setRank(m.rank);
    b.setExitCode(m.exit_code);
    b.setSignal(m.signal);
    b.setMessage(m.message);
  }
  static WorkerExit read(Type::Reader r) {
    return {r.getTrialId(), r.getRunId(), r.getRank(), r.getExitCode(), r.getSignal(), text(r.getMessage())};
  }
};

template <>
struct Schema<LogLines> {
  using Type = ::LogLines;
  static void write(const LogLines& m, Type::Builder b) {
    b.setTrialId(m.trial_id);
    b.setRunId(m.run_id);
    write_list(m.lines, b.initLines(m.lines.size()));
  }
  static LogLines read(Type::Reader r) {
    return {r.getTrialId(), r.getRunId(), read_list<LogEntry>(r.getLines())};
  }
};

template <>
struct Schema<RankAddress> {
  using Type = ::RankAddress;
  static void write(const RankAddress& m, Type::Builder b) {
    b.setHostId(m.host_id);
    b.setHost(m.host);
    b.setPort(m.port);
  }
  static RankAddress read(Type::Reader r) { return {text(r.getHostId()), text(r.getHost()), r.getPort()}; }
};

template <>
struct Schema<RankHello> {
  using Type = ::RankHello;
  static void write(const RankHello& m, Type::Builder b) {
    b.setTrialId(m.trial_id);
    b.setRunId(m.run_id);
    b.setRank(m.rank);
    b.setToken(m.token);
    Schema<RankAddress>::write(m.address, b.initAddress());
  }
  static RankHello read(Type::Reader r) {
    return {r.getTrialId(), r.getRunId(), r.getRank(), text(r.getToken()), Schema<RankAddress>::read(r.getAddress())};
  }
};

template <>
struct Schema<RankGroup> {
  using Type = ::RankGroup;
  static void write(const RankGroup& m, Type::Builder b) {
    b.setGroupId(m.group_id);
    b.setSecret(m.secret);
    write_list(m.ranks, b.initRanks(m.ranks.size()));
    b.setTimeoutMs(m.timeout_ms);
    b.setShmLimitBytes(m.shm_limit_bytes);
  }
  static RankGroup read(Type::Reader r) {
    return {text(r.getGroupId()), text(r.getSecret()), read_list<RankAddress>(r.getRanks()), r.getTimeoutMs(),
            r.getShmLimitBytes()};
  }
};

template <>
struct Schema<WorkloadRequest> {
  using Type = ::WorkloadRequest;
  // WorkloadKind and the schema's Kind list the same kinds in the same order.
  static void write(const WorkloadRequest& m, Type::Builder b) {
    b.setKind(static_cast<Type::Kind>(m.kind));
    b.setStartBatch(m.start_batch);
    b.setBatches(m.batches);
    b.setPath(m.path);
    b.setMetricPattern(m.metric_pattern);
  }
  static WorkloadRequest read(Type::Reader r) {
    return {static_cast<WorkloadKind>(r.getKind()), r.getStartBatch(), r.getBatches(), text(r.getPath()),
            text(r.getMetricPattern())};
  }
};

template <>
struct Schema<MetricReport> {
  using Type = ::MetricReport;
  // ReportKind and the schema's Kind list the same kinds in the same order.
  static void write(const MetricReport& m, Type::Builder b) {
    b.setRunId(m.run_id);
    b.setRank(m.rank);
    b.setKind(static_cast<Type::Kind>(m.kind));
    b.setValue(m.value);
    write_metrics(m.metrics, b.initMetrics(m.metrics.size()));
    b.setHasStep(m.step.has_value());
    b.setStep(m.step.value_or(0));
  }
  static MetricReport read(Type::Reader r) {
    MetricReport m{r.getRunId(), r.getRank(), static_cast<ReportKind>(r.getKind()), r.getValue(),
                   read_metrics(r.getMetrics()), std::nullopt};
    if (r.getHasStep()) m.step = r.getStep();
    return m;
  }
};

template <>
struct Schema<WorkloadResult> {
  using Type = ::WorkloadResult;
  static void write(const WorkloadResult& m, Type::Builder b) {
    write_metrics(m.metrics, b.initMetrics(m.metrics.size()));
    b.setBatchesTrained(m.batches_trained);
    b.setErrorMessage(m.error_message);
  }
  static WorkloadResult read(Type::Reader r) {
    return {read_metrics(r.getMetrics()), r.getBatchesTrained(), text(r.getErrorMessage())};
  }
};

template <>
struct Schema<RankRejoin> {
  using Type = ::RankRejoin;
  static void write(const RankRejoin& m, Type::Builder b) {
    b.setTrialId(m.trial_id);
    b.setRunId(m.run_id);
    b.setRank(m.rank);
    b.setToken(m.token);
    b.setHasLast(m.last.has_value());
    if (!m.last) return;
    Schema<WorkloadRequest>::write(m.last->first, b.initLastRequest());
    Schema<WorkloadResult>::write(m.last->second, b.initLastResult());
  }
  static RankRejoin read(Type::Reader r) {
    RankRejoin m{r.getTrialId(), r.getRunId(), r.getRank(), text(r.getToken()), std::nullopt};
    if (r.getHasLast())
      m.last = {Schema<WorkloadRequest>::read(r.getLastRequest()), Schema<WorkloadResult>::read(r.getLastResult())};
    return m;
  }
};

}  // namespace

template <class Message>
Bytes encode(const Message& message) {
  cp::MallocMessageBuilder builder;
  Schema<Message>::write(message, builder.initRoot<typename Schema<Message>::Type>());
  auto words = cp::messageToFlatArray(builder);
  auto bytes = words.asBytes();
  return Bytes(reinterpret_cast<const char*>(bytes.begin()), reinterpret_cast<const char*>(bytes.end()));
}

template <class Message>
Result<Message> decode(const Bytes& bytes) {
  const auto type_name = cp::Schema::from<typename Schema<Message>::Type>().getShortDisplayName();
  auto failure = [&](std::string_view why) {
    return fail(Error::corruption("malformed " + std::string(type_name.cStr()) + " message: " + std::string(why)));
  };
  if (bytes.size() % sizeof(cp::word) != 0) return failure("size is not a multiple of 8 bytes");
  if (bytes.size() > kMaxMessageBytes) return failure("larger than the message limit");
  // Copy into word-aligned storage: CAF's buffer carries no alignment promise.
  kj::Array<cp::word> words = kj::heapArray<cp::word>(bytes.size() / sizeof(cp::word));
  std::memcpy(words.begin(), bytes.data(), bytes.size());
  try {
    cp::ReaderOptions options;
    options.traversalLimitInWords = kMaxMessageBytes / sizeof(cp::word);
    cp::FlatArrayMessageReader reader(words.asPtr(), options);
    return Schema<Message>::read(reader.getRoot<typename Schema<Message>::Type>());
  } catch (const kj::Exception& e) {
    return failure(e.getDescription().cStr());
  }
}

#define VOLADOR_WIRE_MESSAGE(M) \
  template Bytes encode<M>(const M&); \
  template Result<M> decode<M>(const Bytes&);
VOLADOR_WIRE_MESSAGE(CreateExperimentRequest)
VOLADOR_WIRE_MESSAGE(CreateExperimentReply)
VOLADOR_WIRE_MESSAGE(ExperimentList)
VOLADOR_WIRE_MESSAGE(ExperimentDetail)
VOLADOR_WIRE_MESSAGE(TrialDetail)
VOLADOR_WIRE_MESSAGE(LogBatch)
VOLADOR_WIRE_MESSAGE(CheckpointList)
VOLADOR_WIRE_MESSAGE(AgentList)
VOLADOR_WIRE_MESSAGE(AgentInfo)
VOLADOR_WIRE_MESSAGE(LaunchSpec)
VOLADOR_WIRE_MESSAGE(WorkerExit)
VOLADOR_WIRE_MESSAGE(LogLines)
VOLADOR_WIRE_MESSAGE(RankHello)
VOLADOR_WIRE_MESSAGE(RankRejoin)
VOLADOR_WIRE_MESSAGE(RankGroup)
VOLADOR_WIRE_MESSAGE(WorkloadRequest)
VOLADOR_WIRE_MESSAGE(WorkloadResult)
VOLADOR_WIRE_MESSAGE(MetricReport)
#undef VOLADOR_WIRE_MESSAGE

}  // namespace volador::wire
