// master::SearchLog: every searcher's search, journaled as events and
// snapshots and recovered from them at arbitrary points, equals the live one;
// the bytes journaled per event stay flat as the trials grow; a journal of
// earlier versions (the whole state, no events) still recovers.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "master/search_log.hpp"
#include "storage/journal/memory_store.hpp"
#include "runtime/hparams/tests/hp.hpp"

using namespace volador;
using volador::hparams::testing::hp;
using master::SearchLog;
using search::RequestId;
using storage::Journal;
using storage::JournalBatch;

namespace {

constexpr std::uint64_t kExperiment = 1;


// A config of searcher `name` over a space of each kind of hyperparameter
// (counts for grid), with `extra` searcher keys.
config::ExperimentConfig searcher_config(std::string name, std::uint32_t max_trials, std::uint32_t concurrent,
                                         nlohmann::json extra = nlohmann::json::object()) {
  config::ExperimentConfig config;
  config.global_batch_size = 16;
  config.hyperparameters = {{"global_batch_size", hp(hparams::ConstParam{16})},
                            {"x", hp(hparams::DoubleParam{0, 1, 3})},
                            {"layers", hp(hparams::IntParam{1, 4, 2})},
                            {"lr", hp(hparams::LogParam{10, -4, -1, 2})},
                            {"opt", hp(hparams::CategoricalParam{{"sgd", "adam"}})}};
  config.searcher.name = std::move(name);
  config.searcher.metric = "loss";
  config.searcher.max_length = {config::LengthUnit::batches, 400};
  config.searcher.max_trials = max_trials;
  config.searcher.max_concurrent_trials = concurrent;
  config.searcher.divisor = 2;
  config.searcher.extra = std::move(extra);
  return config;
}

// Every searcher make_searcher builds, with the options that change what it journals.
std::vector<config::ExperimentConfig> every_searcher() {
  auto single = searcher_config("single", 0, 1);
  single.hyperparameters = {{"global_batch_size", hp(hparams::ConstParam{16})}, {"x", hp(hparams::ConstParam{0.5})}};
  auto pbt = searcher_config("pbt", 0, 0);
  pbt.searcher.pbt = {.population_size = 6,
                      .num_rounds = 4,
                      .length_per_round = {config::LengthUnit::batches, 100},
                      .truncate_fraction = 0.34,
                      .resample_probability = 0.25,
                      .perturb_factor = 0.2};
  return {single,
          pbt,
          searcher_config("grid", 0, 3),
          searcher_config("random", 12, 3),
          searcher_config("random", 10, 2, {{"early_stopping", {{"min_trials", 1}, {"start_step", 1}, {"num_steps", 4}}},
                                            {"max_failed_trials", 3}}),
          searcher_config("tpe", 12, 3, {{"n_startup_trials", 4}}),
          searcher_config("tpe", 10, 2, {{"goal", 0.05}, {"early_stopping", "median"}, {"n_startup_trials", 3}}),
          searcher_config("bayesian", 8, 2, {{"n_initial_points", 3}, {"n_candidates", 40}}),
          searcher_config("adaptive_asha", 16, 4)};
}

std::shared_ptr<search::Searcher> build(const config::ExperimentConfig& config) {
  auto searcher = search::make_searcher(config, 11);
  REQUIRE(searcher);
  return std::shared_ptr<search::Searcher>(std::move(*searcher));
}

// Stands in for the experiment actor: acts on the searcher's operations as
// it does (a trial per CreateTrial, sometimes failing to get an id) and feeds
// it seeded random trial events, journaling after each as it does.
class Driver {
 public:
  // Drives `log` on from where it stands: its unfinished trials are live.
  Driver(SearchLog& log, Journal& journal, std::uint64_t seed) : log_(log), journal_(journal), random_(seed) {
    for (const auto& [request, t] : log.progress().trials)
      if (!t.ended) live_[request] = {.target = t.target, .validated = t.validated, .closing = t.closing};
  }

  void start() {
    apply(log_.initial_operations());
    journal();
  }

  // One random event of a live trial, journaled; false when none is live.
  bool step() {
    if (live_.empty()) return false;
    auto it = std::next(live_.begin(), static_cast<long>(below(live_.size())));
    const RequestId request = it->first;
    Live& trial = it->second;
    const std::uint64_t roll = below(100);
    if (trial.closing || (trial.target > 0 && trial.validated == trial.target) || trial.target == 0) {
      end(request, roll < 90 ? RunState::completed : RunState::canceled);
    } else if (roll < 75) {
      validate(request, trial.target);
    } else if (roll < 85 && trial.validated + 1 < trial.target) {
      validate(request, trial.validated + 1 + below(trial.target - trial.validated - 1));
    } else if (roll < 90) {
      live_.erase(request);  // invalid hyperparameters: the searcher may replace the trial
      log_.trial_ended(request);
      apply(log_.trial_exited_early(request, search::ExitReason::invalid_hparams));
    } else {
      end(request, roll < 95 ? RunState::error : RunState::canceled);
    }
    journal();
    return true;
  }

  const std::vector<search::Operation>& operations() const { return operations_; }
  std::uint64_t events() const { return events_; }

 private:
  struct Live {
    std::uint64_t target = 0;
    std::uint64_t validated = 0;
    bool closing = false;
  };

  std::uint64_t below(std::uint64_t n) { return std::uniform_int_distribution<std::uint64_t>(0, n - 1)(random_); }

  void apply(const search::Operations& operations) {
    for (const auto& operation : operations) {
      operations_.push_back(operation);
      std::visit([&](const auto& op) { act(op); }, operation);
    }
  }
  void act(const search::CreateTrial& op) {
    if (below(100) < 3) return apply(log_.trial_exited_early(op.request_id, search::ExitReason::errored));
    live_[op.request_id] = {};
    apply(log_.trial_created(op.request_id));
  }
  void act(const search::ValidateAfter& op) {
    if (auto it = live_.find(op.request_id); it != live_.end()) {
      it->second.target = op.batches;
      log_.asked_to_validate(op.request_id, op.batches);
    }
  }
  void act(const search::CloseTrial& op) {
    if (auto it = live_.find(op.request_id); it != live_.end()) {
      it->second.closing = true;
      log_.asked_to_close(op.request_id);
    }
  }
  void act(const search::Shutdown& op) { log_.shut_down(op.failure); }

  void validate(RequestId request, std::uint64_t batches) {
    live_[request].validated = batches;
    const double metric = std::uniform_real_distribution<double>(0, 1)(random_);
    apply(log_.validation_completed(request, metric, batches));
  }
  void end(RequestId request, RunState state) {
    live_.erase(request);
    log_.trial_ended(request);
    if (state == RunState::completed) return apply(log_.trial_closed(request));
    apply(log_.trial_exited_early(
        request, state == RunState::error ? search::ExitReason::errored : search::ExitReason::user_canceled));
  }
  void journal() {
    JournalBatch batch;
    log_.journal(batch, kExperiment);
    REQUIRE(journal_.commit(batch));
    ++events_;
  }

  SearchLog& log_;
  Journal& journal_;
  std::mt19937_64 random_;
  std::map<RequestId, Live> live_;
  std::vector<search::Operation> operations_;
  std::uint64_t events_ = 0;
};

// The search that `journal` holds, recovered into a fresh searcher of `config`.
SearchLog recovered(const Journal& journal, const config::ExperimentConfig& config, master::SnapshotPolicy policy) {
  auto journaled = journal.search_log(kExperiment);
  REQUIRE(journaled);
  REQUIRE(journaled->has_value());
  auto log = SearchLog::recover(build(config), **journaled, policy);
  REQUIRE(log);
  return std::move(*log);
}

void check_same_search(const SearchLog& recovered, const SearchLog& live) {
  CHECK(recovered.searcher().save_state() == live.searcher().save_state());
  CHECK(recovered.searcher().progress() == live.searcher().progress());
  CHECK(recovered.progress() == live.progress());
}

// A store that counts the bytes (keys and values) of what it is asked to put.
class CountingStore final : public storage::KeyValueStore {
 public:
  explicit CountingStore(std::uint64_t& bytes) : bytes_(bytes) {}
  Result<std::optional<std::string>> get(std::string_view key) const override { return store_.get(key); }
  Result<std::optional<std::string>> last_key_with(std::string_view prefix) const override {
    return store_.last_key_with(prefix);
  }
  Status scan(std::string_view prefix, std::string_view start, const Visitor& visit) const override {
    return store_.scan(prefix, start, visit);
  }
  Status write(const storage::KeyValueBatch& batch) override {
    for (const auto& write : batch.writes())
      if (const auto* put = std::get_if<storage::KeyValueBatch::Put>(&write)) bytes_ += put->key.size() + put->value.size();
    return store_.write(batch);
  }

 private:
  storage::MemoryStore store_;
  std::uint64_t& bytes_;
};

struct JournaledSearch {
  double bytes_per_event = 0;  // of the search state, on average over the whole search
  std::size_t trials = 0;      // created
};

// A random search of `max_trials` trials, 8 at a time, driven to its end.
JournaledSearch journal_random_search(std::uint32_t max_trials) {
  std::uint64_t bytes = 0;
  Journal journal(std::make_unique<CountingStore>(bytes));
  SearchLog log(build(searcher_config("random", max_trials, 8)));
  Driver driver(log, journal, 5);
  driver.start();
  while (driver.step()) {
  }
  return {static_cast<double>(bytes) / static_cast<double>(driver.events()), log.progress().trials.size()};
}

// The search state as earlier versions journaled it (the experiment actor's
// search_state_json): the searcher's state and each trial's progress.
nlohmann::json earlier_versions_state(const SearchLog& live) {
  nlohmann::json trials = nlohmann::json::object();
  for (const auto& [request, t] : live.progress().trials)
    trials[std::to_string(request)] = {
        {"target", t.target}, {"closing", t.closing}, {"validated", t.validated}, {"ended", t.ended}};
  return {{"searcher", live.searcher().save_state()}, {"trials", trials}, {"shutdown", live.progress().shutdown},
          {"search_failed", live.progress().search_failed}};
}

std::unique_ptr<Journal> opened(const std::filesystem::path& dir) {
  auto journal = Journal::open(dir);
  if (!journal) FAIL("open: " << journal.error().message);
  return std::move(*journal);
}

struct MemoryJournal {
  std::unique_ptr<Journal> journal = Journal::in_memory();
};
struct RocksdbJournal {
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("volador-search-log-test-" + std::to_string(std::random_device()()));
  std::unique_ptr<Journal> journal = opened(dir);
  ~RocksdbJournal() {
    journal.reset();
    std::filesystem::remove_all(dir);
  }
};

}  // namespace

TEST_CASE("every searcher's search recovered from its journal at any point equals the live one", "[search_log]") {
  for (const auto& config : every_searcher()) {
    for (std::uint64_t min_events : {1, 3, 64}) {
      for (std::uint64_t seed : {1, 2, 3}) {
        INFO(config.searcher.name << " " << config.searcher.extra.dump() << ", a snapshot at least every "
                                  << min_events << " events, seed " << seed);
        const master::SnapshotPolicy policy{.min_events = min_events};
        auto reference_journal = Journal::in_memory();
        SearchLog reference(build(config), policy);
        Driver uninterrupted(reference, *reference_journal, seed);
        uninterrupted.start();
        while (uninterrupted.step()) {
        }

        // The same search, its master restarted at random points: each time
        // the search recovered from the journal replaces the live one.
        auto journal = Journal::in_memory();
        SearchLog live(build(config), policy);
        Driver restarted(live, *journal, seed);
        std::mt19937_64 restarts(seed);
        restarted.start();
        do {
          if (restarts() % 4 != 0) continue;
          SearchLog recovered_log = recovered(*journal, config, policy);
          check_same_search(recovered_log, live);
          live = std::move(recovered_log);
        } while (restarted.step());
        check_same_search(recovered(*journal, config, policy), live);
        CHECK(restarted.operations() == uninterrupted.operations());
        check_same_search(live, reference);
      }
    }
  }
}

TEST_CASE("after a journal write that was lost the next event journals the whole state", "[search_log]") {
  const auto config = searcher_config("random", 6, 2);
  auto journal = Journal::in_memory();
  SearchLog live(build(config));
  Driver driver(live, *journal, 3);
  driver.start();
  REQUIRE(driver.step());
  JournalBatch lost;
  // An event whose batch is never written: an early validation of a live trial.
  auto open = std::find_if(live.progress().trials.begin(), live.progress().trials.end(),
                           [](const auto& entry) { return !entry.second.ended; });
  REQUIRE(open != live.progress().trials.end());
  live.validation_completed(open->first, 0.5, 1);
  live.journal(lost, kExperiment);
  CHECK(std::holds_alternative<JournalBatch::SearchEventAppend>(lost.operations().at(0)));
  live.journal_lost();
  REQUIRE(driver.step());
  CHECK((*journal->search_log(kExperiment))->events.empty());
  check_same_search(recovered(*journal, config, {}), live);
}

TEST_CASE("the bytes journaled per search event stay flat from 10 to 10000 trials", "[search_log]") {
  const auto few = journal_random_search(10);
  const auto many = journal_random_search(10'000);
  CHECK(few.trials >= 9);  // a few trials fail to be created
  CHECK(many.trials >= 9'000);
  // The whole state is O(trials) bytes, written once per max(64, trials) events.
  CHECK(many.bytes_per_event < 1024);
  CHECK(many.bytes_per_event < 3 * few.bytes_per_event);
}

TEMPLATE_TEST_CASE("a journal of earlier versions (the whole state and no events) recovers and goes on",
                   "[search_log][compatibility]", MemoryJournal, RocksdbJournal) {
  const auto config = searcher_config("tpe", 10, 3, {{"n_startup_trials", 3}});
  auto scratch = Journal::in_memory();
  SearchLog live(build(config));
  Driver driver(live, *scratch, 4);
  driver.start();
  for (int i = 0; i < 12; ++i) REQUIRE(driver.step());

  TestType under_test;
  Journal& journal = *under_test.journal;
  REQUIRE(journal.put_searcher_state(kExperiment, earlier_versions_state(live)));
  SearchLog continued = recovered(journal, config, {});
  check_same_search(continued, live);

  // The recovered search journals events after that snapshot; they recover too.
  Driver after(continued, journal, 9);
  for (int i = 0; i < 5 && after.step(); ++i) {
  }
  CHECK((*journal.search_log(kExperiment))->events.size() == after.events());
  check_same_search(recovered(journal, config, {}), continued);
}
