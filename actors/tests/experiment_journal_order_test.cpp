// The order of the experiment actor's journal writes and its trials': the
// batch that journals a search event (and the trials it created) is queued
// before any trial hears of the event, so whatever a trial journals in answer
// is written after it, and a crash never leaves a trial's writes without the
// search event that caused them. A real actor system, real trial actors and
// an in-memory journal whose written batches the test observes in order.
// Last, that the experiment lets go of a trial's actor once the trial ended.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <thread>

#include <caf/all.hpp>

#include "actors/atoms.hpp"
#include "actors/experiment_actor.hpp"
#include "master/search_log.hpp"
#include "runtime/config/config_parser.hpp"
#include "storage/checkpoints/shared_fs_store.hpp"

using namespace volador;
using namespace volador::actors;
namespace fs = std::filesystem;

namespace {

// One trial that runs a command and validates once, at 100 batches.
const std::string kSingleCommand =
    "name: single\n"
    "entrypoint: python3 train.py\n"
    "hyperparameters: {global_batch_size: 10}\n"
    "searcher: {name: single, metric: accuracy, smaller_is_better: false, max_length: {batches: 100}}\n";

// Two trials a round, for two rounds of 100 batches: after the first the worse is replaced by a copy of the better.
const std::string kPbt =
    "name: pbt\n"
    "entrypoint: model_def:T\n"
    "hyperparameters: {global_batch_size: 10, lr: {type: double, minval: 0.1, maxval: 1.0}}\n"
    "searcher: {name: pbt, metric: accuracy, smaller_is_better: false, population_size: 2, num_rounds: 2,\n"
    "  length_per_round: {batches: 100}, replace_function: {truncate_fraction: 0.5},\n"
    "  explore_function: {resample_probability: 0.2, perturb_factor: 0.1}}\n";

// Three trials, two at a time: a trial that ends early is followed by the next.
const std::string kRandom =
    "name: random\n"
    "entrypoint: python3 train.py\n"
    "hyperparameters: {global_batch_size: 10, lr: {type: double, minval: 0.1, maxval: 1.0}}\n"
    "searcher: {name: random, metric: accuracy, smaller_is_better: false, max_trials: 3, max_concurrent_trials: 2,\n"
    "  max_length: {batches: 100}}\n";

// Two trials, one at a time: the second runs after the first ended.
const std::string kTwoInTurn =
    "name: in-turn\n"
    "entrypoint: python3 train.py\n"
    "hyperparameters: {global_batch_size: 10, lr: {type: double, minval: 0.1, maxval: 1.0}}\n"
    "searcher: {name: random, metric: accuracy, smaller_is_better: false, max_trials: 2, max_concurrent_trials: 1,\n"
    "  max_length: {batches: 100}}\n";

constexpr std::uint64_t kExperiment = 1;
constexpr std::uint64_t kTarget = 100;
// How long the experiment, about to journal an event, gives its trials to
// journal first: ample for a trial already told of the event.
constexpr auto kPatience = std::chrono::seconds(2);

std::shared_ptr<const config::ExperimentConfig> parse(const std::string& yaml) {
  auto outcome = config::parse_experiment_config(yaml, "experiment.yaml");
  if (auto* errors = std::get_if<std::vector<config::ConfigError>>(&outcome)) FAIL(config::format_errors(*errors));
  return std::make_shared<config::ExperimentConfig>(std::get<config::ExperimentConfig>(outcome));
}

// What the journal wrote, in order, as far as these tests look: labels for
// trial records, search events that saw a validation at kTarget, log lines.
class WrittenBatches {
 public:
  static constexpr const char* kTrialActive = "the trial's record, ACTIVE";
  static constexpr const char* kTrialPaused = "the trial's record, PAUSED";
  static constexpr const char* kValidationEvent = "the search event that saw the validation";
  static constexpr const char* kTrialCompleted = "the trial's record, COMPLETED";
  static constexpr const char* kLogLine = "a trial's log line";
  static constexpr const char* kOrphanLogLine = "a log line of a trial the journal does not hold";
  static constexpr const char* kKillMark = "the experiment's record, killed, before its end";
  static constexpr const char* kTrialCanceled = "the trial's record, CANCELED";

  // Labels `batch`, just written to `journal` (Journal::observe_commits).
  void record(const storage::JournalBatch& batch, const storage::Journal& journal) {
    std::lock_guard lock(mutex_);
    for (const auto& operation : batch.operations()) {
      if (const auto* logs = std::get_if<storage::JournalBatch::NumberedLogLines>(&operation)) {
        labels_.emplace_back(kLogLine);
        const auto orphan = [&](const storage::LogLine& line) { return !journal.trial(line.trial_id); };
        if (std::ranges::any_of(logs->lines, orphan)) labels_.emplace_back(kOrphanLogLine);
      } else if (const auto* event = std::get_if<storage::JournalBatch::SearchEventAppend>(&operation)) {
        const bool saw = std::ranges::any_of(event->event.trials, [](const auto& p) { return p.validated >= kTarget; });
        if (saw) labels_.emplace_back(kValidationEvent);
      } else if (const auto* trial = std::get_if<storage::TrialRecord>(&operation)) {
        if (trial->state == RunState::active) labels_.emplace_back(kTrialActive);
        if (trial->state == RunState::paused) labels_.emplace_back(kTrialPaused);
        if (trial->state == RunState::completed) labels_.emplace_back(kTrialCompleted);
        if (trial->state == RunState::canceled) labels_.emplace_back(kTrialCanceled);
      } else if (const auto* experiment = std::get_if<storage::ExperimentRecord>(&operation)) {
        if (experiment->killed && !is_terminal(experiment->state)) labels_.emplace_back(kKillMark);
      }
    }
    written_.notify_all();
  }

  // Waits up to `within` for a batch labelled `label` to be written; whether one was.
  bool wait_for(const char* label, std::chrono::milliseconds within) {
    std::unique_lock lock(mutex_);
    return written_.wait_for(lock, within, [&] { return position_locked(label) < labels_.size(); });
  }

  // Where `label` first appears among the labels written, in order; their count if nowhere.
  std::size_t position(const char* label) const {
    std::lock_guard lock(mutex_);
    return position_locked(label);
  }

  std::vector<std::string> labels() const {
    std::lock_guard lock(mutex_);
    return labels_;
  }

 private:
  std::size_t position_locked(const char* label) const {
    return static_cast<std::size_t>(std::ranges::find(labels_, label) - labels_.begin());
  }

  mutable std::mutex mutex_;
  std::condition_variable written_;
  std::vector<std::string> labels_;
};

// The config's own searcher, except that progress(), the experiment's first
// step in journaling an event, waits once armed until the trial's COMPLETED
// record is written or kPatience passes: a trial told of the event before
// the experiment queued its batch has the time to journal first.
class HeldSearcher final : public search::Searcher {
 public:
  HeldSearcher(std::unique_ptr<search::Searcher> searcher, WrittenBatches& written)
      : searcher_(std::move(searcher)), written_(written) {}

  // The next progress() waits.
  void arm() { armed_ = true; }

  search::Operations initial_operations() override { return searcher_->initial_operations(); }
  search::Operations on_trial_created(search::RequestId id) override { return searcher_->on_trial_created(id); }
  search::Operations on_validation_completed(search::RequestId id, double metric, std::uint64_t batches) override {
    return searcher_->on_validation_completed(id, metric, batches);
  }
  search::Operations on_trial_closed(search::RequestId id) override { return searcher_->on_trial_closed(id); }
  search::Operations on_trial_exited_early(search::RequestId id, search::ExitReason reason) override {
    return searcher_->on_trial_exited_early(id, reason);
  }
  [[nodiscard]] double progress() const override {
    if (armed_.exchange(false)) written_.wait_for(WrittenBatches::kTrialCompleted, kPatience);
    return searcher_->progress();
  }
  [[nodiscard]] nlohmann::json save_state() const override { return searcher_->save_state(); }
  Status load_state(const nlohmann::json& state) override { return searcher_->load_state(state); }

 private:
  std::unique_ptr<search::Searcher> searcher_;
  WrittenBatches& written_;
  mutable std::atomic<bool> armed_{false};
};

// An actor system, an in-memory journal observed by `written`, and what an
// experiment of kSingleCommand needs.
struct ExperimentFixture {
  fs::path dir = fs::temp_directory_path() / ("volador-experiment-order-" + std::to_string(std::random_device{}()));
  std::shared_ptr<const config::ExperimentConfig> config;
  std::shared_ptr<storage::Journal> journal = storage::Journal::in_memory();
  WrittenBatches written;
  // Threads enough that a trial runs while the experiment waits in HeldSearcher::progress().
  struct FourThreads : caf::actor_system_config {
    FourThreads() { set("scheduler.max-threads", 4); }
  } system_config;
  caf::actor_system system{system_config};
  GatewayActor gateway;        // the trials' (none: what they send it is dropped)
  ExperimentActor experiment;  // the one started

  explicit ExperimentFixture(const std::string& yaml = kSingleCommand) : config(parse(yaml)) {
    journal->observe_commits([this](const storage::JournalBatch& batch) { written.record(batch, *journal); });
  }
  // A failed check leaves no actor behind for the system to wait on.
  ~ExperimentFixture() {
    caf::anon_send(experiment, kill_atom::value);
    if (gateway) caf::anon_send_exit(gateway, caf::exit_reason::user_shutdown);
    fs::remove_all(dir);
  }

  std::shared_ptr<HeldSearcher> searcher() {
    auto built = search::make_searcher(*config, 11);
    REQUIRE(built);
    return std::make_shared<HeldSearcher>(std::move(*built), written);
  }

  // Starts experiment kExperiment in `state` (journaled killed if `killed`)
  // over `searcher`, continuing `recovery` if not null.
  ExperimentActor start(std::shared_ptr<HeldSearcher> searcher, std::shared_ptr<const ExperimentRecovery> recovery,
                        RunState state = RunState::active, bool killed = false) {
    storage::ExperimentRecord record{.id = kExperiment, .state = state};
    record.killed = killed;
    std::shared_ptr<checkpoints::CheckpointStore> store = checkpoints::SharedFsStore::open(dir).value();
    return experiment = system.spawn(experiment_actor, MasterContext{.journal = journal, .gateway = gateway}, record, config,
                                     std::make_shared<const std::string>("archive"), std::move(store),
                                     std::move(searcher), std::move(recovery));
  }

  // Journals what a master left that died with the search's one trial
  // (journaled in `state`) asked to validate at kTarget, and, if `validated`,
  // its validation there journaled but not yet seen by the search; what a
  // restarted master reads back.
  std::shared_ptr<const ExperimentRecovery> journal_a_crash(RunState state, bool validated) {
    master::SearchLog search(searcher());
    const auto initial = search.initial_operations();
    REQUIRE(!initial.empty());
    const search::RequestId request = std::get<search::CreateTrial>(initial.front()).request_id;
    search.trial_created(request);
    search.asked_to_validate(request, kTarget);
    storage::JournalBatch before_the_crash;
    search.journal(before_the_crash, kExperiment);
    storage::TrialRecord trial{.id = 5, .experiment_id = kExperiment, .request_id = request, .state = state};
    trial.hparams = nlohmann::json::object();
    before_the_crash.put_trial(trial);
    if (validated)
      before_the_crash.append_metrics(
          {.trial_id = trial.id, .kind = MetricKind::validation, .batches = kTarget, .metrics = {{"accuracy", 0.5}}});
    REQUIRE(journal->commit(before_the_crash));
    auto journaled = journal->search_log(kExperiment);
    REQUIRE(journaled);
    REQUIRE(*journaled);
    return std::make_shared<const ExperimentRecovery>(ExperimentRecovery{**journaled, {trial}});
  }

  // Journals what a master left that died while killing an experiment of
  // kRandom: its record marked killed, and its first two trials, both asked
  // to validate at kTarget, one journaled CANCELED (the search not told) and
  // one still ACTIVE; what a restarted master reads back.
  std::shared_ptr<const ExperimentRecovery> journal_a_crash_while_killing() {
    master::SearchLog search(searcher());
    std::vector<storage::TrialRecord> trials;
    for (const auto& operation : search.initial_operations()) {
      const search::RequestId request = std::get<search::CreateTrial>(operation).request_id;
      search.trial_created(request);
      search.asked_to_validate(request, kTarget);
      const auto state = trials.empty() ? RunState::canceled : RunState::active;
      trials.push_back({.id = 5 + trials.size(), .experiment_id = kExperiment, .request_id = request, .state = state});
      trials.back().hparams = nlohmann::json::object();
    }
    REQUIRE(trials.size() == 2);
    storage::JournalBatch before_the_crash;
    search.journal(before_the_crash, kExperiment);
    for (const auto& trial : trials) before_the_crash.put_trial(trial);
    storage::ExperimentRecord record{.id = kExperiment, .state = RunState::active};
    record.killed = true;
    before_the_crash.put_experiment(record);
    REQUIRE(journal->commit(before_the_crash));
    auto journaled = journal->search_log(kExperiment);
    REQUIRE(journaled);
    REQUIRE(*journaled);
    return std::make_shared<const ExperimentRecovery>(ExperimentRecovery{**journaled, trials});
  }

  // Waits for `experiment` to end (its trials ended first).
  void wait_for_end(const ExperimentActor& experiment) {
    caf::scoped_actor waiter{system};
    waiter->monitor(experiment);
    bool ended = false;
    waiter->receive([&](const caf::down_msg&) { ended = true; }, caf::after(std::chrono::seconds(30)) >> [] {});
    REQUIRE(ended);
  }

  // The experiment's first trials, once journaled.
  std::vector<storage::TrialRecord> first_trials() {
    REQUIRE(written.wait_for(WrittenBatches::kTrialActive, std::chrono::seconds(30)));
    auto trials = journal->trials(kExperiment);
    REQUIRE(trials);
    return *trials;
  }

  // Requires the search event that saw the trial's validation to be written before the trial's COMPLETED record.
  void require_event_written_first() {
    const auto labels = written.labels();
    std::string in_order;
    for (const auto& label : labels) in_order += label + "; ";
    INFO("written, in order: " << in_order);
    REQUIRE(written.position(WrittenBatches::kTrialCompleted) < labels.size());
    CHECK(written.position(WrittenBatches::kValidationEvent) < written.position(WrittenBatches::kTrialCompleted));
  }
};

}  // namespace

TEST_CASE("An experiment journals a validation's search event before its trial hears it must close") {
  ExperimentFixture f;
  auto searcher = f.searcher();
  auto experiment = f.start(searcher, nullptr);
  const auto trials = f.first_trials();
  REQUIRE(trials.size() == 1);
  const auto& trial = trials.front();
  searcher->arm();
  // As the trial reports it: the single searcher closes the trial that validated at its length.
  caf::anon_send(experiment, validated_atom::value, trial.request_id, 0.5, kTarget);
  f.wait_for_end(experiment);
  f.require_event_written_first();
}

TEST_CASE("A recovered experiment journals the validations it replays before its trial hears it must close") {
  ExperimentFixture f;
  auto recovery = f.journal_a_crash(RunState::active, true);
  auto searcher = f.searcher();
  searcher->arm();  // the recovery journals once
  auto experiment = f.start(searcher, std::move(recovery));
  f.wait_for_end(experiment);
  f.require_event_written_first();
}

// The experiment journals its pause (or activation) before its trials hear
// of it: a master that died between the two leaves trials that missed it.
TEST_CASE("A recovered experiment pauses a trial that missed its pause, activates one that missed its activation") {
  ExperimentFixture f;
  SECTION("paused") {
    f.start(f.searcher(), f.journal_a_crash(RunState::active, false), RunState::paused);
    CHECK(f.written.wait_for(WrittenBatches::kTrialPaused, std::chrono::seconds(10)));
  }
  SECTION("active") {
    f.start(f.searcher(), f.journal_a_crash(RunState::paused, false), RunState::active);
    CHECK(f.written.wait_for(WrittenBatches::kTrialActive, std::chrono::seconds(10)));
  }
}

// pbt's copy of a trial that has no checkpoint says so in its log: a line
// written after the trial's record, so never one of a trial a crash lost
// (whose id the next master may hand out again).
TEST_CASE("An experiment journals a new trial's record before the first line of its log") {
  ExperimentFixture f(kPbt);
  f.start(f.searcher(), nullptr);
  const auto trials = f.first_trials();
  REQUIRE(trials.size() == 2);
  // Both validate at the round's end: the worse is closed and replaced by a copy of the better (no checkpoint).
  caf::anon_send(f.experiment, validated_atom::value, trials[0].request_id, 0.9, kTarget);
  caf::anon_send(f.experiment, validated_atom::value, trials[1].request_id, 0.1, kTarget);
  REQUIRE(f.written.wait_for(WrittenBatches::kLogLine, std::chrono::seconds(30)));
  CHECK(f.written.position(WrittenBatches::kOrphanLogLine) == f.written.labels().size());
}

// A master that dies after trials journaled their kill but before the
// experiment journaled its end must not find an experiment that resumes.
TEST_CASE("An experiment journals its kill before any trial hears of it") {
  ExperimentFixture f;
  f.start(f.searcher(), nullptr);
  REQUIRE(f.first_trials().size() == 1);
  caf::anon_send(f.experiment, kill_atom::value);
  f.wait_for_end(f.experiment);
  std::string in_order;
  for (const auto& label : f.written.labels()) in_order += label + "; ";
  INFO("written, in order: " << in_order);
  REQUIRE(f.written.position(WrittenBatches::kTrialCanceled) < f.written.labels().size());
  CHECK(f.written.position(WrittenBatches::kKillMark) < f.written.position(WrittenBatches::kTrialCanceled));
  auto ended = f.journal->experiment(kExperiment);
  REQUIRE(ended);
  CHECK(ended->state == RunState::canceled);
}

TEST_CASE("A recovered experiment journaled killed kills its unfinished trials, starts none, and ends CANCELED") {
  ExperimentFixture f(kRandom);
  f.start(f.searcher(), f.journal_a_crash_while_killing(), RunState::active, true);
  f.wait_for_end(f.experiment);
  auto trials = f.journal->trials(kExperiment);
  REQUIRE(trials);
  CHECK(trials->size() == 2);  // the searcher, told nothing, created no third
  for (const auto& trial : *trials) CHECK(trial.state == RunState::canceled);
  auto ended = f.journal->experiment(kExperiment);
  REQUIRE(ended);
  CHECK(ended->state == RunState::canceled);
}

namespace {

// A gateway that only notes, by trial id, the address of each trial actor
// that attaches: a weak reference, which keeps no actor alive.
struct AttachedTrials {
  std::mutex mutex;
  std::map<std::uint64_t, caf::actor_addr> by_trial;

  std::optional<caf::actor_addr> of(std::uint64_t trial_id) {
    std::lock_guard lock(mutex);
    const auto it = by_trial.find(trial_id);
    return it == by_trial.end() ? std::nullopt : std::optional(it->second);
  }
};

GatewayActor noting_gateway(caf::actor_system& system, std::shared_ptr<AttachedTrials> attached) {
  auto gateway = system.spawn([attached](caf::event_based_actor*) -> caf::behavior {
    return {
        [attached](attach_atom, std::uint64_t trial_id, const TrialActor& trial) {
          std::lock_guard lock(attached->mutex);
          attached->by_trial[trial_id] = trial.address();
        },
        [](detach_atom, std::uint64_t) {},
    };
  });
  return caf::actor_cast<GatewayActor>(gateway);
}

// Whether some handle still holds the actor at `address` alive, once `within` passed.
bool still_held(const caf::actor_addr& address, std::chrono::milliseconds within) {
  const auto deadline = std::chrono::steady_clock::now() + within;
  while (caf::actor_cast<caf::strong_actor_ptr>(address) != nullptr) {
    if (std::chrono::steady_clock::now() > deadline) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

}  // namespace

// A handle kept to an ended trial's actor keeps that actor's memory (its
// state's storage included) for the experiment's whole life: a few KB for
// every trial of a long search.
TEST_CASE("An experiment lets go of a trial's actor once the trial ended") {
  ExperimentFixture f(kTwoInTurn);
  auto attached = std::make_shared<AttachedTrials>();
  f.gateway = noting_gateway(f.system, attached);
  f.start(f.searcher(), nullptr);
  const auto trials = f.first_trials();
  REQUIRE(trials.size() == 1);
  const auto& first = trials.front();
  std::optional<caf::actor_addr> actor;
  for (int tries = 0; !actor && tries < 3000; ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    actor = attached->of(first.id);
  }
  REQUIRE(actor);
  // As the trial reports it: the search closes the trial that validated at its length, then starts the second.
  caf::anon_send(f.experiment, validated_atom::value, first.request_id, 0.5, kTarget);
  REQUIRE(f.written.wait_for(WrittenBatches::kTrialCompleted, std::chrono::seconds(30)));
  CHECK_FALSE(still_held(*actor, std::chrono::seconds(5)));
  auto both = f.journal->trials(kExperiment);
  REQUIRE(both);
  CHECK(both->size() == 2);  // the experiment runs on with its second trial
}
