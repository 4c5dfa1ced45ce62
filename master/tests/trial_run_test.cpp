#include <catch2/catch.hpp>

#include <array>
#include <fstream>
#include <map>
#include <random>
#include <regex>

#include "master/trial_run.hpp"
#include "runtime/config/config_parser.hpp"
#include "storage/checkpoints/shared_fs_store.hpp"

using namespace volador;
using namespace volador::master;
namespace fs = std::filesystem;
using Phase = TrialRun::Phase;

namespace {

// 10 batches a workload, a validation every 20 and a checkpoint every 40; the
// tests' targets (100) lie below the searcher's max_length, as an adaptive
// searcher's rungs do, so at its target a trial waits for the search.
const std::string kConfig =
    "name: trial-run\n"
    "entrypoint: native:mlp_classifier\n"
    "hyperparameters: {global_batch_size: 10}\n"
    "records_per_epoch: 100\n"
    "scheduling_unit: 10\n"
    "min_validation_period: {batches: 20}\n"
    "min_checkpoint_period: {batches: 40}\n"
    "checkpoint_policy: none\n"
    "searcher: {name: single, metric: accuracy, smaller_is_better: false, max_length: {batches: 200}}\n"
    "resources: {slots_per_trial: 2, kill_grace_period: 2500ms}\n";

// A 2-slot command trial (a script): one `run` workload per run, rank 0's reports in batches.
const std::string kCommandConfig =
    "name: command\n"
    "entrypoint: python3 train.py\n"
    "hyperparameters: {global_batch_size: 10}\n"
    "searcher: {name: single, metric: accuracy, smaller_is_better: false, max_length: {batches: 100}}\n"
    "resources: {slots_per_trial: 2}\n";

constexpr std::array kEffectNames{"RequestSlots", "ReleaseSlots",  "WatchAgents",      "ForgetRun",
                                  "LaunchRank",   "AdmitRank",     "RefuseRank",       "AnswerHellos",
                                  "AnswerRejoins", "SendWorkload", "ResendWorkload",   "ShutdownRanks", "AdoptRun",
                                  "ClaimWorkers", "StartReattachTimer", "ReportValidation", "ReportCheckpoint",
                                  "JournalReports", "AcknowledgeReports", "AcknowledgeWhenJournaled", "ReportEnded"};
static_assert(kEffectNames.size() == std::variant_size_v<TrialEffect>);

std::vector<std::string> names(const TrialEffects& effects) {
  std::vector<std::string> out;
  for (const auto& effect : effects) out.emplace_back(kEffectNames[effect.index()]);
  return out;
}

template <class Effect>
Effect only(const TrialEffects& effects) {
  std::vector<Effect> found;
  for (const auto& effect : effects)
    if (const auto* e = std::get_if<Effect>(&effect)) found.push_back(*e);
  REQUIRE(found.size() == 1);
  return found.front();
}

config::ExperimentConfig parse(const std::string& yaml) {
  auto outcome = config::parse_experiment_config(yaml, "distributed.yaml");
  if (auto* errors = std::get_if<std::vector<config::ConfigError>>(&outcome)) FAIL(config::format_errors(*errors));
  return std::get<config::ExperimentConfig>(outcome);
}

wire::WorkloadResult answer(std::uint64_t batches_trained, double accuracy = 0.5) {
  return {.metrics = {{"accuracy", accuracy}, {"loss", 1 - accuracy}}, .batches_trained = batches_trained};
}

// A command's report of its validation accuracy, at its step or numbered.
wire::MetricReport accuracy_report(double accuracy, std::optional<std::uint64_t> step = std::nullopt) {
  return {.run_id = 1, .rank = 0, .kind = wire::ReportKind::metrics, .value = 0, .metrics = {{"accuracy", accuracy}},
          .step = step};
}

wire::MetricReport value_report(wire::ReportKind kind, double value) {
  return {.run_id = 1, .rank = 0, .kind = kind, .value = value, .metrics = {}, .step = std::nullopt};
}

CommandReported report_batch(std::uint64_t seq, std::vector<wire::MetricReport> reports, std::uint32_t run_id = 1,
                             std::uint32_t rank = 0) {
  return {{.run_id = run_id, .rank = rank, .seq = seq, .reports = std::move(reports)}};
}

// Trial 7 of experiment 1, new.
storage::TrialRecord new_trial_record() { return {.id = 7, .experiment_id = 1, .request_id = 70}; }

// A trial of experiment 1 on a fresh journal and checkpoint store, with a
// clock that only moves when told and a short reattach grace.
struct Harness {
  fs::path dir = fs::temp_directory_path() / ("volador-trial-run-" + std::to_string(std::random_device{}()));
  std::shared_ptr<storage::Journal> journal = storage::Journal::in_memory();
  std::shared_ptr<checkpoints::CheckpointStore> store = checkpoints::SharedFsStore::open(dir / "ckpt").value();
  std::int64_t now = 1'000;
  bool issuing = true;  // whether rank identities can be issued
  bool ranks_run_chains = false;  // what the ranks' hellos and rejoins say
  std::optional<TrialRun> run;

  std::shared_ptr<const config::ExperimentConfig> config;

  explicit Harness(const std::string& extra_yaml = "", storage::TrialRecord record = new_trial_record(),
                   const std::string& yaml = kConfig)
      : config(std::make_shared<config::ExperimentConfig>(parse(yaml + extra_yaml))) {
    record.hparams = nlohmann::json::object();
    REQUIRE(journal->put_trial(record));
    make_run(record);
  }
  ~Harness() { fs::remove_all(dir); }

  // The master restarted: the trial as a new master recovers it from the
  // journal (and checkpoint store), and what it does first.
  TrialEffects restart_master() {
    make_run(journaled());
    return run->start();
  }
  void make_run(const storage::TrialRecord& record) {
    run.emplace(TrialSetup{.spec = {.record = record,
                                    .config = config,
                                    .archive = std::make_shared<std::string>("archive"),
                                    .store = store},
                           .journal = journal,
                           .master_host = "master",
                           .master_port = 4000,
                           .timings = {.reattach_grace = std::chrono::milliseconds(50)},
                           .clock = [this] { return now; },
                           .make_secret = [] { return std::string("secret"); },
                           .issue_rank_identity = [this](const std::string&, const tls::RankName& rank) -> Result<tls::Identity> {
                             if (!issuing) return fail(Error::internal("the CA is unreadable"));
                             return tls::Identity{"ca", "certificate of " + rank.common_name(), "key of " + rank.common_name()};
                           }});
  }

  // The effects of `event`, where a JournalReports is written at once and the
  // effects of its ReportsJournaled take its place (as the actor's would follow).
  TrialEffects on(TrialEvent event) { return with_reports_written(run->on(std::move(event))); }
  TrialEffects with_reports_written(TrialEffects effects) {
    TrialEffects out;
    for (auto& effect : effects) {
      const auto* journal_reports = std::get_if<JournalReports>(&effect);
      if (journal_reports == nullptr) {
        out.push_back(std::move(effect));
        continue;
      }
      const auto written = journal->commit(*journal_reports->writes);
      auto after = on(ReportsJournaled{journal_reports->run_id, journal_reports->seq,
                                       written ? std::string() : written.error().message});
      out.insert(out.end(), after.begin(), after.end());
    }
    return out;
  }
  [[nodiscard]] Phase phase() const { return run->phase(); }

  // Given a target, granted two slots on one agent: launching run 1.
  TrialEffects launch() {
    (void)on(TrainTo{100});
    return on(SlotsGranted{{{"agent-a", {0, 1}}}});
  }
  TrialEffects hello(std::uint32_t rank, std::uint32_t run_id = 1, const std::string& token = "secret") {
    return on(RankHelloed{{.trial_id = 7, .run_id = run_id, .rank = rank, .token = token,
                           .address = {"host", "10.0.0.1", static_cast<std::uint16_t>(5000 + rank)},
                           .runs_chains = ranks_run_chains}});
  }
  // Launched, both ranks reported: running, its first workload sent.
  SendWorkload start_running() {
    (void)launch();
    (void)hello(0);
    return only<SendWorkload>(hello(1));
  }
  TrialEffects answer_all(const SendWorkload& sent, const wire::WorkloadResult& result) {
    TrialEffects effects;
    for (std::uint32_t rank = 0; rank < sent.ranks; ++rank) effects = on(WorkloadAnswered{sent.workload, rank, result});
    return effects;
  }
  // Answers each workload as a healthy run would (checkpoints written to
  // their folders) until the one in flight trains from `batches` on; that one.
  SendWorkload train_to(SendWorkload sent, std::uint64_t batches) {
    while (sent.request.kind != wire::WorkloadKind::train || sent.request.start_batch < batches) {
      if (sent.request.kind == wire::WorkloadKind::checkpoint)
        std::ofstream(fs::path(sent.request.path) / "weights.bin") << "weights";
      const bool train = sent.request.kind == wire::WorkloadKind::train;
      const auto trained = sent.request.start_batch + (train ? sent.request.batches : 0);
      sent = only<SendWorkload>(answer_all(sent, answer(trained)));
    }
    return sent;
  }
  TrialEffects rejoin(std::uint32_t rank, std::optional<wire::FinishedWorkload> last, std::uint32_t run_id = 1,
                      const std::string& token = "secret") {
    return on(RankRejoined{{.trial_id = 7, .run_id = run_id, .rank = rank, .token = token, .last = std::move(last),
                            .runs_chains = ranks_run_chains}});
  }
  // A rejoin of run 1 resending the workloads the rank finished, oldest first.
  TrialEffects rejoin_with(std::uint32_t rank, std::vector<wire::FinishedWorkload> finished) {
    auto last = finished.back();
    finished.pop_back();
    return on(RankRejoined{{.trial_id = 7, .run_id = 1, .rank = rank, .token = "secret", .last = std::move(last),
                            .earlier = std::move(finished), .runs_chains = ranks_run_chains}});
  }
  TrialEffects exit(std::uint32_t rank, std::int32_t code, std::int32_t signal = 0, std::uint32_t run_id = 1) {
    return on(WorkerExited{{.trial_id = 7, .run_id = run_id, .rank = rank, .exit_code = code, .signal = signal}});
  }
  [[nodiscard]] std::vector<storage::MetricRecord> metrics() const { return journal->metrics(7).value(); }
  [[nodiscard]] storage::TrialRecord journaled() const { return journal->trial(7).value(); }
};

// A trial whose run 3 on agent-a was live when the master restarted.
storage::TrialRecord live_run_record() {
  return {.id = 7, .experiment_id = 1, .request_id = 70, .run_id = 3, .run_token = "secret", .run_agents = {"agent-a"}};
}

}  // namespace

TEST_CASE("A launch carries the experiment's image, force_pull_image and registry credentials to the agent") {
  Harness h("environment:\n  image: registry.example.com/train:1\n  force_pull_image: true\n"
            "  registry_auth: {username: alice, password: s3cret, serveraddress: registry.example.com}\n");
  h.on(TrainTo{100});
  const auto launch = std::get<LaunchRank>(h.on(SlotsGranted{{{"agent-a", {0, 1}}}})[1]);
  CHECK(launch.spec.image == "registry.example.com/train:1");
  CHECK(launch.spec.force_pull_image);
  REQUIRE(launch.spec.registry_auth);
  CHECK((launch.spec.registry_auth->username == "alice" && launch.spec.registry_auth->password == "s3cret" &&
         launch.spec.registry_auth->serveraddress == "registry.example.com"));
  Harness plain;
  plain.on(TrainTo{100});
  const auto unset = std::get<LaunchRank>(plain.on(SlotsGranted{{{"agent-a", {0, 1}}}})[1]);
  CHECK((unset.spec.image.empty() && !unset.spec.force_pull_image && !unset.spec.registry_auth));
}

TEST_CASE("A trial asks for its slots once given a target and launches one rank per granted slot") {
  Harness h;
  CHECK(names(h.on(TrainTo{100})) == std::vector<std::string>{"RequestSlots"});
  CHECK(h.phase() == Phase::waiting_for_slots);
  const auto effects = h.on(SlotsGranted{{{"agent-a", {3}}, {"agent-b", {0}}}});
  CHECK(names(effects) == std::vector<std::string>{"WatchAgents", "LaunchRank", "LaunchRank"});
  CHECK(std::get<WatchAgents>(effects[0]).agent_ids == std::vector<std::string>{"agent-a", "agent-b"});
  const auto& first = std::get<LaunchRank>(effects[1]);
  const auto& second = std::get<LaunchRank>(effects[2]);
  CHECK(first.agent_id == "agent-a");
  CHECK((first.spec.rank == 0 && first.spec.slot == 3 && first.spec.node_index == 0 && first.spec.node_count == 2));
  CHECK(second.agent_id == "agent-b");
  CHECK((second.spec.rank == 1 && second.spec.slot == 0 && second.spec.node_index == 1 && second.spec.world_size == 2));
  CHECK((first.spec.run_id == 1 && first.spec.token == "secret" && first.spec.master_host == "master"));
  CHECK(first.spec.kill_grace_period_ms == 2500);  // resources.kill_grace_period reaches the agents
  CHECK(first.spec.exit_carries_output);  // the trial takes the rank's last lines in its exit report
  CHECK(first.spec.shm_size_bytes == 0);  // resources.shm_size unset: an unsandboxed agent may run it
  // each launch carries an identity of its own, naming its experiment, trial, run and rank
  CHECK((first.spec.rank_certificate == "certificate of rank:1:7:1.0" && first.spec.rank_private_key == "key of rank:1:7:1.0"));
  CHECK(second.spec.rank_certificate == "certificate of rank:1:7:1.1");
  CHECK(h.phase() == Phase::launching);
  CHECK(h.journaled().run_id == 1);
}

// A trial that never ran (run 0) and continues no other trial starts from
// the beginning: there is no checkpoint to look for and no report to remove.
// Looking wrote a synced deletion per new trial on the master's scheduler
// threads, and its range tombstones slowed every later read of the journal.
TEST_CASE("A new trial's first target asks for slots without writing to the journal") {
  Harness h;
  const auto commits = h.journal->stats().commits;
  CHECK(names(h.on(TrainTo{100})) == std::vector<std::string>{"RequestSlots"});
  CHECK(h.journal->stats().commits == commits);
}

TEST_CASE("A run whose rank identities cannot be issued launches nothing and restarts") {
  Harness h("max_restarts: 1\n");
  h.issuing = false;
  (void)h.on(TrainTo{100});
  const auto effects = h.on(SlotsGranted{{{"agent-a", {0, 1}}}});
  CHECK(names(effects) == std::vector<std::string>{"WatchAgents", "ForgetRun", "ReleaseSlots", "RequestSlots"});
  CHECK(h.journaled().restarts == 1);
  h.issuing = true;
  CHECK(names(h.on(SlotsGranted{{{"agent-a", {0, 1}}}})) ==
        std::vector<std::string>{"WatchAgents", "LaunchRank", "LaunchRank"});
}

TEST_CASE("The ranks' hellos are held until every rank reported, then answered with the group and trained") {
  Harness h;
  (void)h.launch();
  CHECK(names(h.hello(1)) == std::vector<std::string>{"AdmitRank"});
  const auto effects = h.hello(0);
  CHECK(names(effects) == std::vector<std::string>{"AdmitRank", "AnswerHellos", "SendWorkload"});
  const auto group = std::get<AnswerHellos>(effects[1]).group;
  CHECK(group.group_id == "volador-trial-7-run-1");
  CHECK(group.shm_limit_bytes == 4ull << 30);  // resources.shm_size unset: the sandbox's default /dev/shm
  REQUIRE(group.ranks.size() == 2);
  CHECK((group.ranks[0].port == 5000 && group.ranks[1].port == 5001));
  const auto sent = std::get<SendWorkload>(effects[2]);
  CHECK((sent.request.kind == wire::WorkloadKind::train && sent.request.batches == 10 && sent.ranks == 2));
  CHECK(h.phase() == Phase::running);
}

TEST_CASE("A hello of another run or with a bad token is refused and a repeated one replaces the first") {
  struct Row {
    const char* what;
    std::uint32_t rank, run_id;
    std::string token;
  };
  const std::vector<Row> rows{{"an old run", 0, 0, "secret"},
                              {"a bad token", 0, 1, "guess"},
                              {"no rank of the run", 2, 1, "secret"}};
  for (const auto& row : rows) {
    INFO(row.what);
    Harness h;
    (void)h.launch();
    CHECK(names(h.hello(row.rank, row.run_id, row.token)) == std::vector<std::string>{"RefuseRank"});
    CHECK(h.phase() == Phase::launching);
  }
  // Rank 0's link dropped while it waited for its group: it says hello again.
  Harness h;
  (void)h.launch();
  (void)h.hello(0);
  CHECK(names(h.hello(0)) == std::vector<std::string>{"AdmitRank"});
  CHECK(h.phase() == Phase::launching);
  const auto started = h.hello(1);
  CHECK(names(started) == std::vector<std::string>{"AdmitRank", "AnswerHellos", "SendWorkload"});
  // Rank 1's group never reached it: the same group again, and the workload in flight.
  const auto again = h.hello(1);
  CHECK(names(again) == std::vector<std::string>{"AdmitRank", "AnswerHellos", "ResendWorkload"});
  CHECK(std::get<AnswerHellos>(again[1]).group == std::get<AnswerHellos>(started[1]).group);
  CHECK(std::get<ResendWorkload>(again[2]).rank == 1);
}

TEST_CASE("A hello to a run taken back after a master restart is refused: its ranks rejoin") {
  Harness h("", live_run_record());
  (void)h.run->start();
  (void)h.on(RunAdopted{3, {{"agent-a", {0, 1}}}});
  (void)h.rejoin(0, std::nullopt, 3);
  (void)h.rejoin(1, std::nullopt, 3);
  REQUIRE(h.phase() == Phase::running);
  CHECK(names(h.hello(0, 3)) == std::vector<std::string>{"RefuseRank"});
}

TEST_CASE("A workload is done when every rank answered and its metrics are journaled once") {
  Harness h;
  const auto first = h.start_running();
  CHECK(h.on(WorkloadAnswered{first.workload, 0, answer(10)}).empty());
  CHECK(h.on(WorkloadAnswered{first.workload, 0, answer(10)}).empty());  // rank 0 again: still waiting
  const auto effects = h.on(WorkloadAnswered{first.workload, 1, answer(10)});
  CHECK(names(effects) == std::vector<std::string>{"SendWorkload"});
  CHECK(std::get<SendWorkload>(effects[0]).request.start_batch == 10);
  REQUIRE(h.metrics().size() == 1);
  CHECK((h.metrics()[0].batches == 10 && h.metrics()[0].reported_at_ms == 1'000));
  CHECK(h.journaled().run_agents == std::vector<std::string>{"agent-a"});  // live from the first answer on
}

// What one event journals (the record, metrics, a checkpoint) goes in one
// commit, written before the event's effects go out.
TEST_CASE("An event's record and reports are journaled in one commit") {
  Harness h;
  const auto first = h.start_running();
  CHECK(h.on(WorkloadAnswered{first.workload, 0, answer(10)}).empty());
  const auto commits = h.journal->stats().commits;
  // The first answer marks the run live (the record) and journals its training metrics.
  (void)h.on(WorkloadAnswered{first.workload, 1, answer(10)});
  CHECK(h.journal->stats().commits == commits + 1);
  CHECK(h.metrics().size() == 1);
  CHECK(h.journaled().batches_trained == 10);
  CHECK(h.journaled().run_agents == std::vector<std::string>{"agent-a"});
}

TEST_CASE("A command's exit journals its result, the record and its log line in one commit") {
  Harness h("", new_trial_record(), kCommandConfig);
  const auto run = h.start_running();
  (void)h.on(report_batch(1, {accuracy_report(0.7, 100)}));
  const auto commits = h.journal->stats().commits;
  CHECK(only<ReportValidation>(h.answer_all(run, {.metrics = {}, .batches_trained = 0, .error_message = ""})) ==
        ReportValidation{70, 0.7, 100});
  CHECK(h.journal->stats().commits == commits + 1);
  CHECK(h.journaled().batches_trained == 100);
  const auto lines = h.journal->logs(7, 0, 100).value();
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].text == "run 1 launching on agent-a (2 slots)");
  CHECK(lines[1].text == "the command finished: accuracy = 0.7");
  CHECK((lines[0].seq == 1 && lines[1].seq == 2 && lines[1].stream == "system" && lines[1].time_ms == h.now));
}

TEST_CASE("A launch journals the run's number and its log line in one commit") {
  Harness h("", new_trial_record(), kCommandConfig);
  (void)h.on(TrainTo{100});
  const auto commits = h.journal->stats().commits;
  (void)h.on(SlotsGranted{{{"agent-a", {0, 1}}}});
  CHECK(h.journal->stats().commits == commits + 1);
  CHECK(h.journaled().run_id == 1);
  CHECK(h.journal->logs(7, 0, 100).value().at(0).text == "run 1 launching on agent-a (2 slots)");
}

TEST_CASE("A validation at the searcher's target reaches the searcher only once the checkpoint there is committed") {
  Harness h;
  // Periodic validations (every 20 batches) go to the searcher at once.
  auto sent = only<SendWorkload>(h.answer_all(h.start_running(), answer(10)));
  const auto periodic = only<SendWorkload>(h.answer_all(sent, answer(20)));
  REQUIRE(periodic.request.kind == wire::WorkloadKind::validate);
  const auto reported = h.answer_all(periodic, answer(20, 0.25));
  CHECK(names(reported) == std::vector<std::string>{"ReportValidation", "SendWorkload"});
  CHECK(only<ReportValidation>(reported) == ReportValidation{70, 0.25, 20});
  // The target's (100) waits for the checkpoint a search may copy (pbt), then goes with it.
  sent = h.train_to(only<SendWorkload>(reported), 90);
  const auto at_target = only<SendWorkload>(h.answer_all(sent, answer(100)));
  REQUIRE(at_target.request.kind == wire::WorkloadKind::validate);
  const auto validated = h.answer_all(at_target, answer(100, 0.75));
  CHECK(names(validated) == std::vector<std::string>{"SendWorkload"});
  const auto checkpoint = only<SendWorkload>(validated);
  REQUIRE(checkpoint.request.kind == wire::WorkloadKind::checkpoint);
  std::ofstream(fs::path(checkpoint.request.path) / "weights.bin") << "weights";
  const auto checkpointed = h.answer_all(checkpoint, answer(100));
  CHECK(names(checkpointed) == std::vector<std::string>{"ReportCheckpoint", "ReportValidation"});
  CHECK(only<ReportValidation>(checkpointed) == ReportValidation{70, 0.75, 100});
  const auto checkpoints = h.journal->checkpoints_of_trial(7).value();
  REQUIRE_FALSE(checkpoints.empty());
  CHECK(checkpoints.back().batches == 100);
}

TEST_CASE("A parked trial finishes its target's work, gives its slots back and takes new ones with its next target") {
  Harness h;
  const auto first = h.start_running();
  CHECK(h.on(Park{}).empty());  // mid-way: the target's work comes first
  auto sent = h.train_to(only<SendWorkload>(h.answer_all(first, answer(10))), 90);
  const auto validate = only<SendWorkload>(h.answer_all(sent, answer(100)));
  const auto checkpoint = only<SendWorkload>(h.answer_all(validate, answer(100, 0.75)));
  std::ofstream(fs::path(checkpoint.request.path) / "weights.bin") << "weights";
  CHECK(names(h.answer_all(checkpoint, answer(100))) ==
        std::vector<std::string>{"ReportCheckpoint", "ReportValidation", "ShutdownRanks", "ReleaseSlots"});
  (void)h.exit(0, 0);
  CHECK(names(h.exit(1, 0)) == std::vector<std::string>{"ForgetRun"});
  CHECK(h.phase() == Phase::idle);
  CHECK(h.journaled().state == RunState::active);
  CHECK(h.journaled().run_agents.empty());
  // Where it stands (a restarted master says it again): no slots; the validation there is
  // reported again, which the experiment drops as seen.
  CHECK(names(h.on(TrainTo{100})) == std::vector<std::string>{"ReportValidation"});
  CHECK(h.phase() == Phase::idle);
  const auto next = h.on(TrainTo{200});
  CHECK(names(next) == std::vector<std::string>{"ReportValidation", "RequestSlots"});  // the experiment drops the repeat
  (void)h.on(SlotsGranted{{{"agent-a", {0, 1}}}});
  (void)h.hello(0, 2);
  const auto resumed = only<SendWorkload>(h.hello(1, 2));
  CHECK(resumed.request.kind == wire::WorkloadKind::train);
  CHECK(resumed.request.start_batch == 100);  // from its checkpoint at the target
}

TEST_CASE("A run that dies after its target's work was done waits without slots, and a close completes it") {
  Harness h;
  const auto first = h.start_running();
  auto sent = h.train_to(only<SendWorkload>(h.answer_all(first, answer(10))), 90);
  const auto validate = only<SendWorkload>(h.answer_all(sent, answer(100)));
  const auto checkpoint = only<SendWorkload>(h.answer_all(validate, answer(100, 0.75)));
  std::ofstream(fs::path(checkpoint.request.path) / "weights.bin") << "weights";
  (void)h.answer_all(checkpoint, answer(100));
  // It restarts from the checkpoint at the target, where nothing is left to do: no slots.
  CHECK(names(h.exit(1, 1)) == std::vector<std::string>{"ForgetRun", "ReleaseSlots", "ReportValidation"});
  CHECK(h.phase() == Phase::idle);
  CHECK(h.journaled().restarts == 1);
  CHECK(h.on(Park{}).empty());
  CHECK(names(h.on(Close{})) == std::vector<std::string>{"ForgetRun", "ReleaseSlots", "ReportEnded"});
  CHECK(h.journaled().state == RunState::completed);
}

// A run whose every rank exited cleanly after its shutdown leaves its agents
// nothing to kill: they are not told. One whose rank died is killed.
TEST_CASE("A run forgotten after every rank's clean exit does not have its agents kill it") {
  Harness h;
  const auto first = h.start_running();
  (void)h.on(Close{});
  auto sent = only<SendWorkload>(h.answer_all(first, answer(10)));
  std::ofstream(fs::path(sent.request.path) / "weights.bin") << "weights";
  (void)h.answer_all(sent, answer(10));
  CHECK(h.exit(0, 0).empty());
  CHECK(only<ForgetRun>(h.exit(1, 0)).ranks_exited);
  Harness died("max_restarts: 1\n");
  (void)died.start_running();
  CHECK_FALSE(only<ForgetRun>(died.exit(1, -1, 9)).ranks_exited);
}

// The fault CI met: rank 1 died right after answering, its agent's report
// restarted the run, and rank 0's answer came after that.
TEST_CASE("An answer that arrives after its run was restarted is ignored") {
  Harness h("max_restarts: 1\n");
  const auto first = h.start_running();
  (void)h.on(WorkloadAnswered{first.workload, 1, answer(10)});
  const auto restarted = h.exit(1, -1, 9);
  CHECK(names(restarted) == std::vector<std::string>{"ForgetRun", "ReleaseSlots", "RequestSlots"});
  CHECK(h.phase() == Phase::waiting_for_slots);
  CHECK(h.on(WorkloadAnswered{first.workload, 0, answer(10)}).empty());
  CHECK(h.metrics().empty());
  CHECK(h.journaled().restarts == 1);
}

TEST_CASE("In every phase a worker exit and an answer of an old run change nothing") {
  using Reach = std::function<std::unique_ptr<Harness>()>;
  const std::vector<std::pair<const char*, Reach>> phases{
      {"idle", [] { return std::make_unique<Harness>(); }},
      {"waiting for slots",
       [] {
         auto h = std::make_unique<Harness>();
         (void)h->on(TrainTo{100});
         return h;
       }},
      {"launching",
       [] {
         auto h = std::make_unique<Harness>();
         (void)h->launch();
         return h;
       }},
      {"running",
       [] {
         auto h = std::make_unique<Harness>();
         (void)h->start_running();
         return h;
       }},
      {"stopping",
       [] {
         auto h = std::make_unique<Harness>();
         (void)h->launch();
         (void)h->on(Pause{});
         (void)h->hello(0);
         (void)h->hello(1);
         return h;
       }},
      {"reattaching",
       [] {
         auto h = std::make_unique<Harness>("", live_run_record());
         (void)h->run->start();
         return h;
       }},
  };
  for (const auto& [name, reach] : phases) {
    INFO(name);
    auto h = reach();
    const auto phase = h->phase();
    CHECK(h->exit(0, -1, 9, 99).empty());
    CHECK(h->on(WorkloadAnswered{99, 0, answer(10)}).empty());
    CHECK(h->on(LaunchFailed{99, 0, "refused"}).empty());
    CHECK(h->on(ReattachTimedOut{99}).empty());
    CHECK(h->on(AgentLost{"agent-z"}).empty());
    CHECK(h->phase() == phase);
  }
}

TEST_CASE("A pause during the rendezvous stops the run as soon as it starts and pauses the trial") {
  Harness h;
  (void)h.launch();
  CHECK(h.on(Pause{}).empty());
  (void)h.hello(0);
  CHECK(names(h.hello(1)) == std::vector<std::string>{"AdmitRank", "AnswerHellos", "ShutdownRanks", "ReleaseSlots"});
  CHECK(h.phase() == Phase::stopping);
  CHECK(h.exit(0, 0).empty());
  CHECK(names(h.exit(1, 0)) == std::vector<std::string>{"ForgetRun"});
  CHECK(h.phase() == Phase::paused);
  CHECK(h.journaled().state == RunState::paused);
  CHECK(names(h.on(Activate{})) == std::vector<std::string>{"RequestSlots"});
}

TEST_CASE("Pausing a running trial checkpoints where it stands before stopping its ranks") {
  Harness h;
  const auto first = h.start_running();
  CHECK(h.on(Pause{}).empty());  // the workload in flight finishes first
  const auto checkpoint = only<SendWorkload>(h.answer_all(first, answer(10)));
  CHECK((checkpoint.request.kind == wire::WorkloadKind::checkpoint && checkpoint.ranks == 1));
  std::ofstream(fs::path(checkpoint.request.path) / "weights.bin") << "weights";
  const auto effects = h.on(WorkloadAnswered{checkpoint.workload, 0, answer(10)});
  CHECK(names(effects) == std::vector<std::string>{"ReportCheckpoint", "ShutdownRanks", "ReleaseSlots"});
  const auto checkpoints = h.journal->checkpoints_of_trial(7).value();
  REQUIRE(checkpoints.size() == 1);
  CHECK((checkpoints[0].batches == 10 && !checkpoints[0].scheduled));
  CHECK(h.store->verify(checkpoints[0].uuid).has_value());
}

TEST_CASE("A failing checkpoint leaves no folder behind and counts as a restart") {
  Harness h("max_restarts: 1\n");
  const auto first = h.start_running();
  (void)h.on(Close{});
  const auto checkpoint = only<SendWorkload>(h.answer_all(first, answer(10)));
  auto failed = answer(10);
  failed.error_message = "disk full";
  // Closed, it completes where it can resume from (here the beginning) instead of relaunching.
  CHECK(names(h.on(WorkloadAnswered{checkpoint.workload, 0, failed})) ==
        std::vector<std::string>{"ForgetRun", "ReleaseSlots", "ReportEnded"});
  CHECK(!fs::exists(checkpoint.request.path));
  CHECK(h.journaled().restarts == 1);
  CHECK(h.journaled().state == RunState::completed);
}

TEST_CASE("A rank's death restarts the run within max_restarts and then ends the trial in ERROR") {
  Harness h("max_restarts: 1\n");
  (void)h.start_running();
  (void)h.exit(1, -1, 9);
  CHECK(h.journaled().restarts == 1);
  (void)h.on(SlotsGranted{{{"agent-a", {0, 1}}}});
  (void)h.hello(0, 2);
  (void)h.hello(1, 2);
  h.now = 5'000;
  const auto effects = h.exit(0, 3, 0, 2);
  CHECK(names(effects) == std::vector<std::string>{"ForgetRun", "ReleaseSlots", "ReportEnded"});
  CHECK(std::get<ReportEnded>(effects[2]).state == RunState::error);
  const auto record = h.journaled();
  CHECK(record.error_message == "rank 0 worker exited with code 3 (max_restarts reached)");
  CHECK(record.ended_at_ms == 5'000);
  CHECK(h.phase() == Phase::ended);
}

TEST_CASE("A launch refused by an agent whose work disk is full waits for slots again, not counted, the reason in the log") {
  Harness h("max_restarts: 0\n");
  (void)h.launch();
  const auto refused = h.on(LaunchFailed{1, 1, "agent agent-a: the work folder /w has 5 MiB free", true});
  CHECK(names(refused) == std::vector<std::string>{"ForgetRun", "ReleaseSlots", "RequestSlots"});
  CHECK(h.phase() == Phase::waiting_for_slots);
  CHECK(h.journaled().restarts == 0);
  std::string log;
  const auto lines = h.journal->logs(7, 0, 100).value();  // outlives the loop
  for (const auto& line : lines) log += line.text + "\n";
  CHECK(log.find("launching rank 1 was refused: agent agent-a: the work folder /w has 5 MiB free; restarting (not "
                 "counted as a restart)") != std::string::npos);
  // Any other failure to launch counts: with max_restarts 0 the trial ends.
  (void)h.on(SlotsGranted{{{"agent-b", {0, 1}}}});
  const auto failed = h.on(LaunchFailed{2, 0, "cannot unpack the project"});
  CHECK(names(failed) == std::vector<std::string>{"ForgetRun", "ReleaseSlots", "ReportEnded"});
  CHECK(h.journaled().error_message == "launching rank 0 failed: cannot unpack the project");
}

TEST_CASE("A lost agent restarts the run without counting a restart") {
  Harness h;
  (void)h.start_running();
  CHECK(h.on(AgentLost{"agent-b"}).empty());  // not one of the run's
  CHECK(names(h.on(AgentLost{"agent-a"})) == std::vector<std::string>{"ForgetRun", "ReleaseSlots", "RequestSlots"});
  CHECK(h.journaled().restarts == 0);
}

TEST_CASE("After a master restart a live run is claimed back and goes on once its agents and every rank returned") {
  Harness h("", live_run_record());
  const auto started = h.run->start();
  CHECK(names(started) == std::vector<std::string>{"AdoptRun", "StartReattachTimer"});
  CHECK(std::get<StartReattachTimer>(started[1]).after == std::chrono::milliseconds(50));
  CHECK(h.phase() == Phase::reattaching);
  CHECK(names(h.on(RankRejoined{{.trial_id = 7, .run_id = 3, .rank = 1, .token = "secret"}})) ==
        std::vector<std::string>{"AdmitRank"});
  CHECK(names(h.on(RunAdopted{3, {{"agent-a", {0, 1}}}})) == std::vector<std::string>{"WatchAgents"});
  const auto effects = h.on(RankRejoined{{.trial_id = 7, .run_id = 3, .rank = 0, .token = "secret"}});
  CHECK(names(effects) == std::vector<std::string>{"AdmitRank", "AnswerRejoins", "ClaimWorkers"});
  CHECK(std::get<AnswerRejoins>(effects[1]).accepted);
  CHECK(h.phase() == Phase::running);
  CHECK(names(h.on(TrainTo{100})) == std::vector<std::string>{"SendWorkload"});
}

TEST_CASE("A run that does not return within the grace is given up and restarted without counting a restart") {
  Harness h("", live_run_record());
  (void)h.run->start();
  (void)h.on(RankRejoined{{.trial_id = 7, .run_id = 3, .rank = 0, .token = "secret"}});
  CHECK(h.on(ReattachTimedOut{2}).empty());  // an older run's timer
  const auto effects = h.on(ReattachTimedOut{3});
  // No target yet (the experiment's comes next): it waits for one without slots.
  CHECK(names(effects) == std::vector<std::string>{"AnswerRejoins", "ForgetRun", "ReleaseSlots"});
  CHECK(h.phase() == Phase::idle);
  CHECK(names(h.on(TrainTo{100})) == std::vector<std::string>{"RequestSlots"});
  CHECK_FALSE(std::get<AnswerRejoins>(effects[0]).accepted);
  const auto record = h.journaled();
  CHECK((record.restarts == 0 && record.run_agents.empty()));
}

// Seen in pbt across a master kill: the restarted search closed the trial on
// its validation at the target (journaled just before the kill) while the
// trial waited for its run to come back; the run could not, and the trial,
// with nothing left to train, sat idle with the close spent.
TEST_CASE("A close that comes while a run is taken back completes the trial once the run is given up") {
  Harness h;
  auto sent = h.train_to(h.start_running(), 60);  // live: the record names the run's agent
  std::uint64_t target = 100;
  SECTION("at its target, validated and checkpointed there") {
    const auto validate = only<SendWorkload>(h.answer_all(h.train_to(sent, 90), answer(100)));
    const auto checkpoint = only<SendWorkload>(h.answer_all(validate, answer(100, 0.75)));
    std::ofstream(fs::path(checkpoint.request.path) / "weights.bin") << "weights";
    (void)h.answer_all(checkpoint, answer(100));
  }
  SECTION("with work left before its target") { target = 200; }
  CHECK(names(h.restart_master()) == std::vector<std::string>{"AdoptRun", "StartReattachTimer"});
  (void)h.on(TrainTo{target});
  CHECK(h.on(Close{}).empty());  // the run may come back: it checkpoints and stops then
  const auto effects = h.on(AdoptFailed{1, "the workers of run 1 did not all survive the master restart"});
  CHECK(names(effects).back() == "ReportEnded");
  CHECK(std::ranges::none_of(names(effects), [](const auto& name) { return name == "RequestSlots"; }));
  CHECK(std::get<ReportEnded>(effects.back()).state == RunState::completed);
  CHECK(h.phase() == Phase::ended);
  CHECK(h.journaled().state == RunState::completed);
  CHECK(h.journaled().restarts == 0);
}

// Seen in cluster_tests' repeated master kills: a master took the rank's
// validation at batch 496 and sent the next training before its write of the
// validation landed, then died; the next master's journal stood at 496
// without it while the rank had trained on to 516, and the trial applied
// that training as the one workload the journal lacked, so its validation
// at 496 was lost and every later one came 20 batches late.
TEST_CASE("A rank that rejoins having trained past a validation the journal lacks makes the run restart, uncounted") {
  Harness h;
  const auto second = h.train_to(h.start_running(), 10);  // training from 10 to 20 in flight
  const auto validate = only<SendWorkload>(h.answer_all(second, answer(20)));
  REQUIRE((validate.request.kind == wire::WorkloadKind::validate && validate.request.start_batch == 20));
  CHECK(names(h.restart_master()) == std::vector<std::string>{"AdoptRun", "StartReattachTimer"});
  (void)h.on(TrainTo{100});
  (void)h.on(RunAdopted{1, {{"agent-a", {0, 1}}}});
  (void)h.rejoin(1, std::nullopt);
  const wire::WorkloadRequest trained_on{wire::WorkloadKind::train, 20, 10, "", ""};
  const auto effects = h.rejoin(0, wire::FinishedWorkload{trained_on, answer(30)});
  CHECK(names(effects).back() == "RequestSlots");
  CHECK(h.phase() == Phase::waiting_for_slots);
  CHECK(h.journaled().restarts == 0);
  CHECK(std::ranges::none_of(h.metrics(), [](const auto& m) { return m.batches > 20; }));
}

// The same loss, with the rank resending every workload it finished since
// the journal's standing: the validation comes back and the run goes on.
TEST_CASE("A rank that rejoins having trained past a validation the journal lacks resends both and the run reattaches") {
  Harness h;
  const auto second = h.train_to(h.start_running(), 10);  // training from 10 to 20 in flight
  const auto validate = only<SendWorkload>(h.answer_all(second, answer(20)));
  CHECK(names(h.restart_master()) == std::vector<std::string>{"AdoptRun", "StartReattachTimer"});
  (void)h.on(TrainTo{100});
  (void)h.on(RunAdopted{1, {{"agent-a", {0, 1}}}});
  (void)h.rejoin(1, std::nullopt);
  const wire::WorkloadRequest trained_on{wire::WorkloadKind::train, 20, 10, "", ""};
  const auto effects = h.rejoin_with(0, {{second.request, answer(20)},  // journaled already: skipped
                                         {validate.request, answer(20, 0.75)},
                                         {trained_on, answer(30)}});
  CHECK(h.phase() == Phase::running);
  const auto next = std::get<SendWorkload>(effects.back());
  CHECK((next.request.kind == wire::WorkloadKind::train && next.request.start_batch == 30));
  std::map<std::pair<storage::MetricKind, std::uint64_t>, int> journaled;
  for (const auto& m : h.metrics()) ++journaled[{m.kind, m.batches}];
  CHECK(journaled[{storage::MetricKind::validation, 20}] == 1);
  CHECK(journaled[{storage::MetricKind::training, 20}] == 1);
  CHECK(journaled[{storage::MetricKind::training, 30}] == 1);
  CHECK(h.journaled().batches_trained == 30);
  CHECK(h.journaled().restarts == 0);
}

TEST_CASE("A kill during reattach ends the trial and refuses a rank that rejoins later") {
  Harness h("", live_run_record());
  (void)h.run->start();
  const auto effects = h.on(Kill{});
  CHECK(names(effects) == std::vector<std::string>{"ForgetRun", "ReleaseSlots", "ReportEnded"});
  CHECK(std::get<ReportEnded>(effects[2]).state == RunState::canceled);
  CHECK(names(h.on(RankRejoined{{.trial_id = 7, .run_id = 3, .rank = 0, .token = "secret"}})) ==
        std::vector<std::string>{"RefuseRank"});
  CHECK(h.on(RunAdopted{3, {{"agent-a", {0, 1}}}}).empty());
}

TEST_CASE("A command trial's live run is given up after a master restart") {
  // Its reports during the outage are lost: the command runs again from the start.
  Harness h("", live_run_record(), kCommandConfig);
  CHECK(names(h.run->start()) == std::vector<std::string>{"ForgetRun", "ReleaseSlots"});
  CHECK(h.journaled().run_agents.empty());
}

TEST_CASE("A rank whose link dropped mid-workload rejoins the running run and its answer counts once") {
  Harness h;
  const auto first = h.start_running();
  CHECK(h.on(WorkloadAnswered{first.workload, 0, answer(10)}).empty());
  // Rank 1 finished the workload, but its answer died with its link.
  const auto effects = h.rejoin(1, wire::FinishedWorkload{first.request, answer(10)});
  CHECK(names(effects) == std::vector<std::string>{"AdmitRank", "AnswerRejoins", "SendWorkload"});
  CHECK(std::get<AnswerRejoins>(effects[1]).accepted);
  CHECK(std::get<SendWorkload>(effects[2]).request.start_batch == 10);
  CHECK(h.on(WorkloadAnswered{first.workload, 1, answer(10)}).empty());  // its old answer, late: done already
  REQUIRE(h.metrics().size() == 1);
  CHECK(h.metrics()[0].batches == 10);
  CHECK(h.phase() == Phase::running);
}

TEST_CASE("A rank that rejoins without the workload in flight is sent it alone again as often as its link drops") {
  Harness h;
  const auto first = h.start_running();
  for (int drop = 0; drop < 2; ++drop) {
    INFO("drop " << drop);
    const auto effects = h.rejoin(1, std::nullopt);
    CHECK(names(effects) == std::vector<std::string>{"AdmitRank", "AnswerRejoins", "ResendWorkload"});
    const auto resent = std::get<ResendWorkload>(effects[2]);
    CHECK((resent.workload == first.workload && resent.request == first.request && resent.rank == 1));
  }
  (void)h.on(WorkloadAnswered{first.workload, 0, answer(10)});
  const auto next = only<SendWorkload>(h.on(WorkloadAnswered{first.workload, 1, answer(10)}));
  // Its last workload is an older one than the workload in flight: sent again.
  const auto effects = h.rejoin(1, wire::FinishedWorkload{first.request, answer(10)});
  CHECK(names(effects) == std::vector<std::string>{"AdmitRank", "AnswerRejoins", "ResendWorkload"});
  CHECK(std::get<ResendWorkload>(effects[2]).workload == next.workload);
  // Having answered, it rejoins again: nothing to send it.
  (void)h.on(WorkloadAnswered{next.workload, 1, answer(20)});
  CHECK(names(h.rejoin(1, wire::FinishedWorkload{next.request, answer(20)})) ==
        std::vector<std::string>{"AdmitRank", "AnswerRejoins"});
  CHECK(h.metrics().size() == 1);
}

TEST_CASE("A stopping run tells a rank that rejoins to stop again and a rejoin of another run or token is refused") {
  Harness h;
  const auto first = h.start_running();
  CHECK(names(h.rejoin(1, std::nullopt, 1, "guess")) == std::vector<std::string>{"RefuseRank"});
  CHECK(names(h.rejoin(1, std::nullopt, 2)) == std::vector<std::string>{"RefuseRank"});
  CHECK(names(h.rejoin(2, std::nullopt)) == std::vector<std::string>{"RefuseRank"});
  (void)h.on(Close{});
  const auto checkpoint = only<SendWorkload>(h.answer_all(first, answer(10)));
  std::ofstream(fs::path(checkpoint.request.path) / "weights.bin") << "weights";
  (void)h.on(WorkloadAnswered{checkpoint.workload, 0, answer(10)});
  REQUIRE(h.phase() == Phase::stopping);
  CHECK(names(h.rejoin(1, std::nullopt)) == std::vector<std::string>{"AdmitRank", "AnswerRejoins", "ShutdownRanks"});
  CHECK(h.exit(0, 0).empty());
  CHECK(names(h.exit(1, 0)) == std::vector<std::string>{"ForgetRun", "ReportEnded"});
}

// Issue 17's fault: after a stall, a report the old run made at batch 70 was
// journaled although the trial had restarted from its checkpoint at 40.
TEST_CASE("After a restart from an earlier checkpoint the superseded run never reports in any phase of the new run") {
  using Reach = std::function<void(Harness&)>;
  const std::vector<std::pair<const char*, Reach>> phases{
      {"waiting for slots", [](Harness&) {}},
      {"launching", [](Harness& h) { (void)h.on(SlotsGranted{{{"agent-a", {0, 1}}}}); }},
      {"running",
       [](Harness& h) {
         (void)h.on(SlotsGranted{{{"agent-a", {0, 1}}}});
         (void)h.hello(0, 2);
         (void)h.hello(1, 2);
       }},
  };
  for (const auto& [name, reach] : phases) {
    INFO(name);
    Harness h;
    const auto stale = h.train_to(h.start_running(), 60);  // run 1 trains 60 -> 70
    REQUIRE(h.journal->checkpoints_of_trial(7).value().size() == 1);
    // The master dropped the run's agent (its link silent past the timeout):
    // run 2 starts from the checkpoint at 40 (the same token: only the run number tells them apart).
    (void)h.on(AgentLost{"agent-a"});
    reach(h);
    const auto phase = h.phase();
    const auto trained = h.run->progress().batches_trained;
    CHECK(trained == 40);
    CHECK(h.on(WorkloadAnswered{stale.workload, 0, answer(70)}).empty());
    CHECK(h.on(WorkloadAnswered{stale.workload, 1, answer(70)}).empty());
    const wire::FinishedWorkload last{stale.request, answer(70)};
    CHECK(names(h.rejoin(0, last)) == std::vector<std::string>{"RefuseRank"});
    CHECK(names(h.rejoin(1, std::nullopt)) == std::vector<std::string>{"RefuseRank"});
    CHECK(names(h.hello(0)) == std::vector<std::string>{"RefuseRank"});
    CHECK(h.exit(0, 1).empty());
    CHECK(h.phase() == phase);
    CHECK(h.run->progress().batches_trained == trained);
    for (const auto& metric : h.metrics()) CHECK(metric.batches <= 40);
  }
}

TEST_CASE("A command's batch of reports is journaled in one commit and acknowledged, its latest result to the searcher") {
  Harness h("", new_trial_record(), kCommandConfig);
  CHECK(h.start_running().request.kind == wire::WorkloadKind::run);
  const auto commits = h.journal->stats().commits;
  const auto effects = h.on(report_batch(1, {accuracy_report(0.1), value_report(wire::ReportKind::loss, 0.9),
                                             accuracy_report(0.2), accuracy_report(0.3, 50)}));
  CHECK(names(effects) == std::vector<std::string>{"AcknowledgeReports", "ReportValidation"});
  CHECK(std::get<AcknowledgeReports>(effects[0]).seq == 1);
  CHECK(std::get<ReportValidation>(effects[1]) == ReportValidation{70, 0.3, 50});
  CHECK(h.journal->stats().commits == commits + 1);
  // Reports without a step are numbered 1, 2, ...; a loss is a training metric.
  std::map<std::pair<storage::MetricKind, std::uint64_t>, MetricMap> journaled;
  for (const auto& m : h.metrics()) journaled[{m.kind, m.batches}] = m.metrics;
  CHECK(journaled == std::map<std::pair<storage::MetricKind, std::uint64_t>, MetricMap>{
                         {{storage::MetricKind::validation, 1}, {{"accuracy", 0.1}}},
                         {{storage::MetricKind::training, 2}, {{"loss", 0.9}}},
                         {{storage::MetricKind::validation, 3}, {{"accuracy", 0.2}}},
                         {{storage::MetricKind::validation, 50}, {{"accuracy", 0.3}}}});
}

TEST_CASE("A batch of reports sent again is only acknowledged and one after a missing batch waits for it") {
  Harness h("", new_trial_record(), kCommandConfig);
  (void)h.start_running();
  CHECK(only<AcknowledgeReports>(h.on(report_batch(1, {accuracy_report(0.1)}))).seq == 1);
  const auto commits = h.journal->stats().commits;
  // Its acknowledgement was lost with the rank's link: sent again.
  auto effects = h.on(report_batch(1, {accuracy_report(0.1)}));
  CHECK(names(effects) == std::vector<std::string>{"AcknowledgeReports"});
  CHECK(std::get<AcknowledgeReports>(effects[0]).seq == 1);
  // Batch 2 was lost: 3 is not journaled, and the answer says how far the journal goes.
  effects = h.on(report_batch(3, {accuracy_report(0.3)}));
  CHECK(only<AcknowledgeReports>(effects).seq == 1);
  CHECK(h.journal->stats().commits == commits);
  CHECK(h.metrics().size() == 1);
  // The rank sends every unacknowledged batch again, in order.
  CHECK(only<AcknowledgeReports>(h.on(report_batch(2, {accuracy_report(0.2)}))).seq == 2);
  effects = h.on(report_batch(3, {accuracy_report(0.3)}));
  CHECK(only<AcknowledgeReports>(effects).seq == 3);
  CHECK(only<ReportValidation>(effects) == ReportValidation{70, 0.3, 3});
  const auto metrics = h.metrics();
  REQUIRE(metrics.size() == 3);
  for (std::size_t i = 0; i < metrics.size(); ++i) CHECK(metrics[i].batches == i + 1);
  CHECK(metrics[2].metrics.at("accuracy") == 0.3);
}

TEST_CASE("A batch of reports of another run or rank, of a native trial or of a stopping run is ignored") {
  Harness h("", new_trial_record(), kCommandConfig);
  (void)h.start_running();
  CHECK(h.on(report_batch(1, {accuracy_report(0.1)}, 2)).empty());     // another run
  CHECK(h.on(report_batch(1, {accuracy_report(0.1)}, 1, 1)).empty());  // rank 1
  CHECK(names(h.on(Pause{})) == std::vector<std::string>{"ShutdownRanks", "ReleaseSlots"});
  CHECK(h.on(report_batch(1, {accuracy_report(0.1)})).empty());  // stopping
  CHECK(h.metrics().empty());
  Harness native;
  (void)native.start_running();
  CHECK(native.on(report_batch(1, {accuracy_report(0.1)})).empty());
  CHECK(native.metrics().empty());
}

TEST_CASE("A command's result is its latest metrics when it exits, the final result last, journaled once at the target") {
  Harness h("", new_trial_record(), kCommandConfig);
  const auto run = h.start_running();
  // A report at the target is the final result's to journal; a later final result wins.
  const auto effects = h.on(report_batch(1, {accuracy_report(0.5, 10), accuracy_report(0.7, 100),
                                             value_report(wire::ReportKind::final_result, 0.9)}));
  CHECK(names(effects) == std::vector<std::string>{"AcknowledgeReports", "ReportValidation"});
  CHECK(std::get<ReportValidation>(effects[1]) == ReportValidation{70, 0.5, 10});
  const auto exited = h.answer_all(run, {.metrics = {}, .batches_trained = 0, .error_message = ""});
  CHECK(only<ReportValidation>(exited) == ReportValidation{70, 0.9, 100});
  const auto metrics = h.metrics();
  REQUIRE(metrics.size() == 2);
  CHECK((metrics[0].batches == 10 && metrics[0].metrics.at("accuracy") == 0.5));
  CHECK((metrics[1].batches == 100 && metrics[1].metrics.at("accuracy") == 0.9));
  CHECK(h.journaled().batches_trained == 100);
}

TEST_CASE("Batches of reports are taken in while earlier ones wait for their write, and answered once written") {
  // The master's threads never wait for a batch's write: the rank's next
  // batches are taken in meanwhile and share the journal's next synced write.
  Harness h("", new_trial_record(), kCommandConfig);
  (void)h.start_running();
  const auto first = only<JournalReports>(h.run->on(report_batch(1, {accuracy_report(0.1)})));
  const auto second = only<JournalReports>(h.run->on(report_batch(2, {accuracy_report(0.2)})));
  CHECK((first.run_id == 1 && first.seq == 1 && second.seq == 2));
  // Batch 2 sent again before the writes (its rank's link dropped, and with
  // it the first copy's answer): this copy is answered once batch 2 is written,
  // not with the journal's progress so far, which would leave it unanswered.
  CHECK(only<AcknowledgeWhenJournaled>(h.run->on(report_batch(2, {accuracy_report(0.2)}))).seq == 2);
  REQUIRE(h.journal->commit(*first.writes));
  auto effects = h.run->on(ReportsJournaled{1, 1, ""});
  CHECK(names(effects) == std::vector<std::string>{"AcknowledgeReports", "ReportValidation"});
  CHECK(std::get<AcknowledgeReports>(effects[0]).seq == 1);
  CHECK(std::get<ReportValidation>(effects[1]) == ReportValidation{70, 0.1, 1});
  SECTION("written") {
    REQUIRE(h.journal->commit(*second.writes));
    effects = h.run->on(ReportsJournaled{1, 2, ""});
    CHECK(std::get<AcknowledgeReports>(effects[0]).seq == 2);
    CHECK(h.metrics().size() == 2);
  }
  SECTION("a failed write ends the trial, which counted on it") {
    CHECK(names(h.run->on(ReportsJournaled{1, 2, "disk full"})).back() == "ReportEnded");
    CHECK_THAT(h.journaled().error_message, Catch::Contains("journaling the command's metrics failed: disk full"));
  }
  SECTION("a write of an earlier run is not answered to the new run's ranks") {
    CHECK(h.run->on(ReportsJournaled{7, 2, ""}).empty());  // no such batch
  }
}

TEST_CASE("A command's captures are committed and journaled with their batch and a relaunch resumes from the latest") {
  Harness h("", new_trial_record(), kCommandConfig);
  const fs::path staging = h.start_running().request.path;
  CHECK_FALSE(fs::exists(staging));  // reserved: most commands save nothing, and the rank makes it
  auto capture = [&](const std::string& name) {
    fs::create_directories(staging / name);
    std::ofstream(staging / name / "model.bin") << "weights of " << name;
    return wire::MetricReport{.run_id = 1, .rank = 0, .kind = wire::ReportKind::checkpoint, .checkpoint = name};
  };
  // After the latest report, with the metrics reported so far, in the batch's one commit.
  const auto commits = h.journal->stats().commits;
  auto effects = h.on(report_batch(1, {accuracy_report(0.1), accuracy_report(0.2, 4), capture("capture-1")}));
  CHECK(names(effects) == std::vector<std::string>{"AcknowledgeReports", "ReportValidation", "ReportCheckpoint"});
  CHECK(h.journal->stats().commits == commits + 1);
  auto saved = h.journal->checkpoints_of_trial(7).value();
  REQUIRE(saved.size() == 1);
  CHECK(saved[0].batches == 4);
  CHECK(saved[0].validation_metrics == MetricMap{{"accuracy", 0.2}});
  CHECK(h.store->verify(saved[0].uuid).has_value());
  CHECK_FALSE(fs::exists(staging / "capture-1"));
  // With no report since the last one: one past it, so the newest is always the latest.
  effects = h.on(report_batch(2, {capture("capture-2")}));
  CHECK(names(effects) == std::vector<std::string>{"AcknowledgeReports", "ReportCheckpoint"});
  saved = h.journal->checkpoints_of_trial(7).value();
  REQUIRE(saved.size() == 2);
  CHECK(saved[1].batches == 5);
  // A capture that is not in the staging folder fails the trial.
  SECTION("a missing capture") {
    CHECK(names(h.on(report_batch(3, {capture("capture-3"), {.kind = wire::ReportKind::checkpoint, .checkpoint = "gone"}})))
              .back() == "ReportEnded");
    CHECK_THAT(h.journaled().error_message, Catch::StartsWith("checkpoint failed: no folder"));
    CHECK(h.journal->checkpoints_of_trial(7).value().size() == 2);  // the batch was not journaled
  }
  SECTION("paused and activated") {
    (void)h.on(Pause{});
    (void)h.exit(0, 0);
    (void)h.exit(1, 0);
    REQUIRE(h.phase() == Phase::paused);
    CHECK_FALSE(fs::exists(staging));
    (void)h.on(Activate{});
    const auto launched = h.on(SlotsGranted{{{"agent-a", {0, 1}}}});
    CHECK(std::get<LaunchRank>(launched[1]).spec.restore_path == h.store->path(saved[1].uuid).value().string());
    (void)h.hello(0, 2);
    const auto run = only<SendWorkload>(h.hello(1, 2));
    CHECK(run.request.path != staging.string());
    // Reports without a step are numbered on from the checkpoint.
    (void)h.on(report_batch(1, {accuracy_report(0.3)}, 2));
    CHECK(h.metrics().back().batches == 6);
  }
}

TEST_CASE("A preempted trial checkpoints where it stands, gives its slots back, waits and resumes from that checkpoint") {
  Harness h;
  const auto first = h.start_running();
  CHECK(h.on(Preempt{9}).empty());  // the workload in flight finishes first
  const auto checkpoint = only<SendWorkload>(h.answer_all(first, answer(10)));
  CHECK(checkpoint.request.kind == wire::WorkloadKind::checkpoint);
  std::ofstream(fs::path(checkpoint.request.path) / "weights.bin") << "weights";
  CHECK(names(h.on(WorkloadAnswered{checkpoint.workload, 0, answer(10)})) ==
        std::vector<std::string>{"ReportCheckpoint", "ShutdownRanks", "ReleaseSlots"});
  CHECK(h.on(Preempt{9}).empty());  // asked once; a repeat changes nothing
  CHECK(h.exit(0, 0).empty());
  CHECK(names(h.exit(1, 0)) == std::vector<std::string>{"ForgetRun", "RequestSlots"});
  CHECK(h.phase() == Phase::waiting_for_slots);
  CHECK(h.journaled().state == RunState::active);
  CHECK(h.journaled().preemptions == 1);
  CHECK(h.journaled().restarts == 0);
  std::string log;
  const auto lines = h.journal->logs(7, 0, 100).value();  // outlives the loop
  for (const auto& line : lines) log += line.text + "\n";
  CHECK(log.find("preempted by the scheduler to make room for experiment 9: checkpointing") != std::string::npos);
  CHECK(log.find("preempted after 10 batches (preemption 1): slots given to experiment 9") != std::string::npos);
  CHECK(h.on(Preempt{9}).empty());  // waiting, it holds nothing to give
  const auto relaunch = h.on(SlotsGranted{{{"agent-b", {0, 1}}}});
  const auto checkpoints = h.journal->checkpoints_of_trial(7).value();
  REQUIRE(checkpoints.size() == 1);
  CHECK(std::get<LaunchRank>(relaunch[1]).spec.restore_path.find(checkpoints[0].uuid) != std::string::npos);
  CHECK(std::get<LaunchRank>(relaunch[1]).spec.run_id == 2);
}

TEST_CASE("A user's pause during a preemption leaves the trial paused, and closing it completes it") {
  SECTION("pause") {
    Harness h;
    const auto first = h.start_running();
    (void)h.on(Preempt{9});
    (void)h.on(Pause{});
    const auto checkpoint = only<SendWorkload>(h.answer_all(first, answer(10)));
    std::ofstream(fs::path(checkpoint.request.path) / "weights.bin") << "weights";
    (void)h.on(WorkloadAnswered{checkpoint.workload, 0, answer(10)});
    (void)h.exit(0, 0);
    CHECK(names(h.exit(1, 0)) == std::vector<std::string>{"ForgetRun"});
    CHECK(h.phase() == Phase::paused);
    CHECK(h.journaled().preemptions == 0);
  }
  SECTION("close") {
    Harness h;
    const auto first = h.start_running();
    (void)h.on(Preempt{9});
    (void)h.on(Close{});
    const auto checkpoint = only<SendWorkload>(h.answer_all(first, answer(10)));
    std::ofstream(fs::path(checkpoint.request.path) / "weights.bin") << "weights";
    (void)h.on(WorkloadAnswered{checkpoint.workload, 0, answer(10)});
    (void)h.exit(0, 0);
    (void)h.exit(1, 0);
    CHECK(h.phase() == Phase::ended);
    CHECK(h.journaled().state == RunState::completed);
  }
}

namespace {

// Rank 0's answer to a command's `run`, a clean exit carrying its last batch of reports.
wire::WorkloadResult answer_with_reports(std::uint64_t seq, std::vector<wire::MetricReport> reports) {
  return {.metrics = {}, .batches_trained = 0, .error_message = "",
          .reports = wire::MetricReports{.run_id = 1, .rank = 0, .seq = seq, .reports = std::move(reports)}};
}

}  // namespace

// A trivial command's one report went in a batch of its own, journaled in a
// synced write and acknowledged before the rank answered, whose end was another write.
TEST_CASE("A command that ran to completion stops its ranks and gives its slots back before the searcher decides") {
  Harness h("", new_trial_record(), kCommandConfig);
  const auto run = h.start_running();
  (void)h.on(report_batch(1, {accuracy_report(0.7)}));
  const auto effects = h.answer_all(run, {.metrics = {}, .batches_trained = 0, .error_message = ""});
  CHECK(names(effects) == std::vector<std::string>{"ShutdownRanks", "ReleaseSlots", "ReportValidation"});
  CHECK(h.phase() == Phase::stopping);
  // Its ranks gone, it waits without slots: a further target gets the same result, and no run.
  CHECK(h.exit(0, 0).empty());
  CHECK(names(h.exit(1, 0)) == std::vector<std::string>{"ForgetRun"});
  CHECK(h.phase() == Phase::idle);
  CHECK(only<ReportValidation>(h.on(TrainTo{200})) == ReportValidation{70, 0.7, 200});
  CHECK(h.phase() == Phase::idle);
  CHECK(h.journaled().batches_trained == 200);
  CHECK(names(h.on(Close{})) == std::vector<std::string>{"ForgetRun", "ReleaseSlots", "ReportEnded"});
  CHECK(h.journaled().state == RunState::completed);
}

TEST_CASE("A command's trial closed or paused before its finished ranks stopped completes or pauses once they did") {
  for (const bool close : {true, false}) {
    Harness h("", new_trial_record(), kCommandConfig);
    const auto run = h.start_running();
    (void)h.on(report_batch(1, {accuracy_report(0.7)}));
    (void)h.answer_all(run, {.metrics = {}, .batches_trained = 0, .error_message = ""});
    // The stop is under way: nothing more to send, no second release.
    CHECK(h.on(close ? TrialEvent{Close{}} : TrialEvent{Pause{}}).empty());
    (void)h.exit(0, 0);
    const auto stopped = names(h.exit(1, 0));
    const auto expected =
        close ? std::vector<std::string>{"ForgetRun", "ReportEnded"} : std::vector<std::string>{"ForgetRun"};
    CHECK(stopped == expected);
    CHECK(h.journaled().state == (close ? RunState::completed : RunState::paused));
  }
}

TEST_CASE("A command that finished and then lost a rank runs again from its resume point") {
  Harness h("", new_trial_record(), kCommandConfig);
  const auto run = h.start_running();
  (void)h.on(report_batch(1, {accuracy_report(0.7)}));
  (void)h.answer_all(run, {.metrics = {}, .batches_trained = 0, .error_message = ""});
  (void)h.exit(0, 0);
  CHECK(names(h.exit(1, 9)) == std::vector<std::string>{"ForgetRun", "RequestSlots"});
  CHECK(h.phase() == Phase::waiting_for_slots);
  // The new run is a run of the command, not its result again.
  (void)h.on(SlotsGranted{{{"agent-a", {0, 1}}}});
  (void)h.hello(0, 2);
  CHECK(only<SendWorkload>(h.hello(1, 2)).request.kind == wire::WorkloadKind::run);
}

TEST_CASE("A 1-slot command trial's launch carries its run and the rank's hello gets the same request, answered once") {
  const auto one_slot = std::regex_replace(kCommandConfig, std::regex("slots_per_trial: 2"), "slots_per_trial: 1");
  Harness h("", new_trial_record(), one_slot);
  (void)h.on(TrainTo{100});
  const auto launched = only<LaunchRank>(h.on(SlotsGranted{{{"agent-a", {0}}}}));
  REQUIRE(launched.spec.first_workload);
  const auto& first = *launched.spec.first_workload;
  CHECK((first.kind == wire::WorkloadKind::run && first.batches == 100 && first.reports_in_answer));
  CHECK(first.path.rfind(h.store->root().string(), 0) == 0);  // the run's staging folder, reserved in the store
  const auto sent = only<SendWorkload>(h.hello(0));
  CHECK(sent.request == first);
  CHECK(sent.ranks == 1);
  (void)h.on(report_batch(1, {accuracy_report(0.7)}));
  CHECK(names(h.on(WorkloadAnswered{sent.workload, 0, {}})) ==
        std::vector<std::string>{"ShutdownRanks", "ReleaseSlots", "ReportValidation"});
  // Ranks of several need their group before they start: their launches carry no workload.
  Harness two("", new_trial_record(), kCommandConfig);
  (void)two.on(TrainTo{100});
  for (const auto& effect : two.on(SlotsGranted{{{"agent-a", {0, 1}}}}))
    if (const auto* launch = std::get_if<LaunchRank>(&effect)) CHECK_FALSE(launch->spec.first_workload);
}

TEST_CASE("A command run's answer carries its last reports, journaled with the run's end in one commit") {
  Harness h("", new_trial_record(), kCommandConfig);
  const auto run = h.start_running();
  CHECK(run.request.reports_in_answer);
  CHECK(h.on(WorkloadAnswered{run.workload, 1, {}}).empty());
  const auto commits = h.journal->stats().commits;
  const auto effects =
      h.on(WorkloadAnswered{run.workload, 0, answer_with_reports(1, {value_report(wire::ReportKind::loss, 0.4),
                                                                     accuracy_report(0.7)})});
  CHECK(names(effects) ==
        std::vector<std::string>{"ReportValidation", "ShutdownRanks", "ReleaseSlots", "ReportValidation"});
  CHECK(std::get<ReportValidation>(effects[0]) == ReportValidation{70, 0.7, 2});    // intermediate, as a batch's
  CHECK(std::get<ReportValidation>(effects[3]) == ReportValidation{70, 0.7, 100});  // the result
  CHECK(h.journal->stats().commits == commits + 1);  // reports, result, record and log line
  std::map<std::pair<storage::MetricKind, std::uint64_t>, MetricMap> journaled;
  for (const auto& m : h.metrics()) journaled[{m.kind, m.batches}] = m.metrics;
  CHECK(journaled == std::map<std::pair<storage::MetricKind, std::uint64_t>, MetricMap>{
                         {{storage::MetricKind::training, 1}, {{"loss", 0.4}}},
                         {{storage::MetricKind::validation, 2}, {{"accuracy", 0.7}}},
                         {{storage::MetricKind::validation, 100}, {{"accuracy", 0.7}}}});
  CHECK(h.journaled().batches_trained == 100);
}

TEST_CASE("An answer's reports follow the batches sent before it, taken in while their writes wait") {
  Harness h("", new_trial_record(), kCommandConfig);
  const auto run = h.start_running();
  const auto first = only<JournalReports>(h.run->on(report_batch(1, {accuracy_report(0.1, 10)})));
  (void)h.run->on(WorkloadAnswered{run.workload, 1, {}});
  // Batch 1's write has not ended: the answer's batch 2 is taken in after it and queued after it.
  const auto effects = h.run->on(WorkloadAnswered{run.workload, 0, answer_with_reports(2, {accuracy_report(0.6, 20)})});
  CHECK(names(effects) ==
        std::vector<std::string>{"ReportValidation", "ShutdownRanks", "ReleaseSlots", "ReportValidation"});
  CHECK(std::get<ReportValidation>(effects[0]) == ReportValidation{70, 0.6, 20});
  CHECK(std::get<ReportValidation>(effects[3]) == ReportValidation{70, 0.6, 100});
  CHECK(h.metrics().size() == 2);  // the answer's: batch 1's write is the test's to do
  REQUIRE(h.journal->commit(*first.writes));
  std::vector<std::uint64_t> at;
  for (const auto& m : h.metrics()) at.push_back(m.batches);
  CHECK(at == std::vector<std::uint64_t>{10, 20, 100});
  // Its acknowledgement goes to nobody that waits: the rank answered already.
  CHECK(names(h.run->on(ReportsJournaled{1, 1, ""})) ==
        std::vector<std::string>{"AcknowledgeReports", "ReportValidation"});
}

TEST_CASE("An answer that comes back with a rejoin after a report batch the trial lacks is asked for again") {
  Harness h("", new_trial_record(), kCommandConfig);
  const auto run = h.start_running();
  (void)h.on(report_batch(1, {accuracy_report(0.1, 10)}));
  (void)h.on(WorkloadAnswered{run.workload, 1, {}});
  // Batch 2 and then the answer (batch 3) died with rank 0's link.
  const auto last = answer_with_reports(3, {accuracy_report(0.3, 30)});
  auto effects = h.rejoin(0, wire::FinishedWorkload{run.request, last});
  CHECK(names(effects) == std::vector<std::string>{"AdmitRank", "AnswerRejoins", "ResendWorkload"});
  CHECK(std::get<ResendWorkload>(effects[2]).request == run.request);
  // The rank sends its unacknowledged batch 2 first, then answers again.
  (void)h.on(report_batch(2, {accuracy_report(0.2, 20)}));
  effects = h.on(WorkloadAnswered{run.workload, 0, last});
  CHECK(names(effects) ==
        std::vector<std::string>{"ReportValidation", "ShutdownRanks", "ReleaseSlots", "ReportValidation"});
  CHECK(std::get<ReportValidation>(effects[3]) == ReportValidation{70, 0.3, 100});
  // Rejoining once more with that answer: taken once, and told to stop again (the run is stopping).
  CHECK(names(h.rejoin(0, wire::FinishedWorkload{run.request, last})) ==
        std::vector<std::string>{"AdmitRank", "AnswerRejoins", "ShutdownRanks"});
  std::vector<std::uint64_t> at;
  for (const auto& m : h.metrics()) at.push_back(m.batches);
  CHECK(at == std::vector<std::uint64_t>{10, 20, 30, 100});
}

TEST_CASE("An answer on a live link after a report batch that never came restarts the run, uncounted") {
  Harness h("", new_trial_record(), kCommandConfig);
  const auto run = h.start_running();
  (void)h.on(WorkloadAnswered{run.workload, 1, {}});
  (void)h.on(WorkloadAnswered{run.workload, 0, answer_with_reports(2, {accuracy_report(0.2, 20)})});
  CHECK(h.phase() == Phase::waiting_for_slots);
  CHECK(h.journaled().restarts == 0);
  CHECK(h.metrics().empty());
}

namespace {

// Rank 0's answer to a chain (train to 100, then validation and checkpoint
// there): each step's result, its checkpoint written; rank 1's lacks the checkpoint.
wire::WorkloadResult chain_answer(const wire::WorkloadRequest& sent, std::uint32_t rank, double accuracy) {
  auto result = answer(100);
  for (const auto& step : share_of_rank(sent, rank).then) {
    if (step.kind == wire::WorkloadKind::checkpoint) std::ofstream(fs::path(step.path) / "weights.bin") << "weights";
    result.then.push_back(step.kind == wire::WorkloadKind::validate ? answer(100, accuracy) : answer(100));
  }
  return result;
}

}  // namespace

TEST_CASE("Ranks that run chains get the target's validation and checkpoint with its last training, answered at once") {
  Harness h;
  h.ranks_run_chains = true;
  auto sent = h.train_to(h.start_running(), 90);
  REQUIRE(sent.request.kind == wire::WorkloadKind::train);
  REQUIRE(sent.request.then.size() == 2);
  CHECK(sent.request.then[0] == wire::WorkloadRequest{wire::WorkloadKind::validate, 100, 0, "", ""});
  CHECK((sent.request.then[1].kind == wire::WorkloadKind::checkpoint && !sent.request.then[1].path.empty()));
  CHECK(share_of_rank(sent.request, 1).then == std::vector{sent.request.then[0]});  // rank 0 alone checkpoints
  (void)h.on(WorkloadAnswered{sent.workload, 1, chain_answer(sent.request, 1, 0.75)});
  const auto effects = h.on(WorkloadAnswered{sent.workload, 0, chain_answer(sent.request, 0, 0.75)});
  CHECK(names(effects) == std::vector<std::string>{"ReportCheckpoint", "ReportValidation"});
  CHECK(only<ReportValidation>(effects) == ReportValidation{70, 0.75, 100});
  const auto checkpoints = h.journal->checkpoints_of_trial(7).value();
  REQUIRE(checkpoints.size() == 3);  // at 40, 80 and the target
  CHECK(checkpoints.back().batches == 100);
  CHECK(checkpoints.back().validation_metrics.at("accuracy") == 0.75);
  CHECK(h.journaled().batches_trained == 100);
  // Where the run stands now, the plan has nothing left: a close stops the ranks.
  CHECK(names(h.on(Close{})) == std::vector<std::string>{"ShutdownRanks", "ReleaseSlots"});
}

TEST_CASE("Ranks that do not say they run chains get one workload at a time") {
  Harness h;
  const auto sent = h.train_to(h.start_running(), 90);
  CHECK(sent.request.then.empty());
  CHECK(only<SendWorkload>(h.answer_all(sent, answer(100))).request.kind == wire::WorkloadKind::validate);
}

TEST_CASE("A chain whose validation failed restarts the run and removes the checkpoint folder it never filled") {
  Harness h("max_restarts: 1\n");
  h.ranks_run_chains = true;
  const auto sent = h.train_to(h.start_running(), 90);
  const fs::path folder = sent.request.then.at(1).path;
  CHECK(fs::exists(folder));
  auto failed = answer(100);
  failed.then.push_back({.error_message = "validation crashed"});
  (void)h.on(WorkloadAnswered{sent.workload, 1, chain_answer(sent.request, 1, 0.5)});
  const auto effects = h.on(WorkloadAnswered{sent.workload, 0, failed});
  CHECK(names(effects).front() == "ForgetRun");
  CHECK_FALSE(fs::exists(folder));
  CHECK(h.journaled().restarts == 1);
  CHECK(h.journal->checkpoints_of_trial(7).value().back().batches == 80);
}

TEST_CASE("A rank back after a master restart with a chain the journal lacks: its training and validation count, the checkpoint is taken again") {
  Harness h;
  h.ranks_run_chains = true;
  const auto sent = h.train_to(h.start_running(), 90);
  const auto chain = chain_answer(sent.request, 0, 0.75);
  CHECK(names(h.restart_master()) == std::vector<std::string>{"AdoptRun", "StartReattachTimer"});
  (void)h.on(TrainTo{100});
  (void)h.on(RunAdopted{1, {{"agent-a", {0, 1}}}});
  (void)h.rejoin(1, wire::FinishedWorkload{share_of_rank(sent.request, 1), chain_answer(sent.request, 1, 0.75)});
  const auto effects = h.rejoin(0, wire::FinishedWorkload{sent.request, chain});
  CHECK(h.phase() == Phase::running);
  const auto next = only<SendWorkload>(effects);
  CHECK((next.request.kind == wire::WorkloadKind::checkpoint && next.request.start_batch == 100 && next.ranks == 1));
  std::map<std::pair<storage::MetricKind, std::uint64_t>, int> journaled;
  for (const auto& m : h.metrics()) ++journaled[{m.kind, m.batches}];
  CHECK(journaled[{storage::MetricKind::training, 100}] == 1);
  CHECK(journaled[{storage::MetricKind::validation, 100}] == 1);
  CHECK(h.journaled().restarts == 0);
}

TEST_CASE("A rank whose link dropped during a chain rejoins with its answer, which counts") {
  Harness h;
  h.ranks_run_chains = true;
  const auto sent = h.train_to(h.start_running(), 90);
  (void)h.on(WorkloadAnswered{sent.workload, 0, chain_answer(sent.request, 0, 0.75)});
  const auto effects =
      h.rejoin(1, wire::FinishedWorkload{share_of_rank(sent.request, 1), chain_answer(sent.request, 1, 0.75)});
  CHECK(names(effects) == std::vector<std::string>{"AdmitRank", "AnswerRejoins", "ReportCheckpoint", "ReportValidation"});
  CHECK(h.journal->checkpoints_of_trial(7).value().back().batches == 100);
}

namespace {

// kConfig with one slot and a 10-batch target: its first workload trains to
// the target, with the target's validation and checkpoint as its chain.
Harness one_slot_native(const std::string& extra_yaml = "") {
  const auto one_slot = std::regex_replace(kConfig, std::regex("slots_per_trial: 2"), "slots_per_trial: 1");
  return Harness(extra_yaml, new_trial_record(), one_slot);
}

}  // namespace

TEST_CASE("A 1-slot native trial's launch carries its first training with its chain and the hello gets the same request") {
  auto h = one_slot_native();
  h.ranks_run_chains = true;
  (void)h.on(TrainTo{10});
  const auto launched = only<LaunchRank>(h.on(SlotsGranted{{{"agent-a", {0}}}}));
  REQUIRE(launched.spec.first_workload);
  const auto& first = *launched.spec.first_workload;
  CHECK((first.kind == wire::WorkloadKind::train && first.start_batch == 0 && first.batches == 10));
  REQUIRE(first.then.size() == 2);
  CHECK(first.then[0].kind == wire::WorkloadKind::validate);
  CHECK(first.then[1].kind == wire::WorkloadKind::checkpoint);
  CHECK(fs::is_directory(first.then[1].path));  // begun in the store: the rank writes into it at once
  const auto sent = only<SendWorkload>(h.hello(0));
  CHECK(sent.request == first);
  CHECK(names(h.on(WorkloadAnswered{sent.workload, 0, chain_answer(sent.request, 0, 0.75)})) ==
        std::vector<std::string>{"ReportCheckpoint", "ReportValidation"});
  CHECK(h.journal->checkpoints_of_trial(7).value().size() == 1);
  CHECK_FALSE(fs::exists(first.then[1].path));  // committed under its uuid
}

TEST_CASE("A rank that ignores its launch's workload (no chains) gets the plan made anew, the launch's folder removed") {
  auto h = one_slot_native();
  (void)h.on(TrainTo{10});
  const auto launched = only<LaunchRank>(h.on(SlotsGranted{{{"agent-a", {0}}}}));
  REQUIRE(launched.spec.first_workload);
  const fs::path folder = launched.spec.first_workload->then.at(1).path;
  const auto sent = only<SendWorkload>(h.hello(0));
  CHECK(sent.request == wire::WorkloadRequest{wire::WorkloadKind::train, 0, 10, "", ""});
  CHECK_FALSE(fs::exists(folder));
}

TEST_CASE("A 1-slot native run that ends before its rank said hello removes its launch's checkpoint folder") {
  auto h = one_slot_native("max_restarts: 1\n");
  (void)h.on(TrainTo{10});
  const auto launched = only<LaunchRank>(h.on(SlotsGranted{{{"agent-a", {0}}}}));
  const fs::path folder = launched.spec.first_workload->then.at(1).path;
  CHECK(names(h.on(LaunchFailed{1, 0, "no such image", false})).front() == "ForgetRun");
  CHECK_FALSE(fs::exists(folder));
  // Paused while it launched: its rank runs the launch's workload, is stopped at its hello, and the folder goes.
  auto paused = one_slot_native();
  paused.ranks_run_chains = true;
  (void)paused.on(TrainTo{10});
  const auto pausing = only<LaunchRank>(paused.on(SlotsGranted{{{"agent-a", {0}}}}));
  const fs::path pausing_folder = pausing.spec.first_workload->then.at(1).path;
  (void)paused.on(Pause{});
  CHECK(names(paused.hello(0)) == std::vector<std::string>{"AdmitRank", "AnswerHellos", "ShutdownRanks", "ReleaseSlots"});
  CHECK(fs::exists(pausing_folder));
  (void)paused.exit(0, 0);
  CHECK(paused.phase() == Phase::paused);
  CHECK_FALSE(fs::exists(pausing_folder));
}

TEST_CASE("A trial that trained the searcher's max_length gives its slots back at once and the close completes it") {
  const auto at_most_100 = std::regex_replace(kConfig, std::regex("max_length: \\{batches: 200\\}"),
                                              "max_length: {batches: 100}");
  for (const bool close_first : {true, false}) {
    DYNAMIC_SECTION("the searcher's close comes " << (close_first ? "before" : "after") << " the ranks stopped") {
      Harness h("", new_trial_record(), at_most_100);
      const auto sent = h.train_to(h.start_running(), 90);
      const auto validate = only<SendWorkload>(h.answer_all(sent, answer(100)));
      const auto checkpoint = only<SendWorkload>(h.answer_all(validate, answer(100, 0.75)));
      std::ofstream(fs::path(checkpoint.request.path) / "weights.bin") << "weights";
      CHECK(names(h.answer_all(checkpoint, answer(100))) ==
            std::vector<std::string>{"ReportCheckpoint", "ReportValidation", "ShutdownRanks", "ReleaseSlots"});
      if (close_first) CHECK(h.on(Close{}).empty());
      (void)h.exit(0, 0);
      const auto stopped = names(h.exit(1, 0));
      if (close_first) {
        CHECK(stopped == std::vector<std::string>{"ForgetRun", "ReportEnded"});
      } else {
        CHECK(stopped == std::vector<std::string>{"ForgetRun"});
        CHECK(h.phase() == Phase::idle);
        CHECK(names(h.on(Close{})) == std::vector<std::string>{"ForgetRun", "ReleaseSlots", "ReportEnded"});
      }
      CHECK(h.journaled().state == RunState::completed);
    }
  }
}
