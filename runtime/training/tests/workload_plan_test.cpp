#include <catch2/catch.hpp>

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/training/workload_plan.hpp"

using namespace volador;
using namespace volador::training;

namespace {

// "T<start>+<n>" for train, "V<at>" validate, "C<at>" checkpoint.
std::string describe(const Workload& w) {
  switch (w.kind) {
    case WorkloadKind::train: return "T" + std::to_string(w.start_batch) + "+" + std::to_string(w.batches);
    case WorkloadKind::validate: return "V" + std::to_string(w.start_batch);
    case WorkloadKind::checkpoint: return "C" + std::to_string(w.start_batch);
    case WorkloadKind::done: return "done";
  }
  return "?";
}

// Runs workloads until done, returning their descriptions; `progress` carries
// over. No validation is recorded as the best.
std::vector<std::string> run_to(const SchedulePolicy& policy, Progress& progress, std::uint64_t target) {
  std::vector<std::string> seen;
  for (int guard = 0; guard < 10000; ++guard) {
    const Workload w = next_workload(policy, progress, target);
    if (w.kind == WorkloadKind::done) return seen;
    seen.push_back(describe(w));
    progress = record_completed(progress, w);
  }
  FAIL("the plan never reached done");
  return seen;
}

using Seq = std::vector<std::string>;

using config::CheckpointPolicy;

// A trial driven as the trial actor drives it: the validation at batch b
// reports metric_at(b) (smaller is better; 1.0 where not listed) and is the
// best when it beats every earlier validation of the trial.
struct SimulatedTrial {
  SimulatedTrial(SchedulePolicy policy, std::map<std::uint64_t, double> metric_at)
      : policy(policy), metric_at(std::move(metric_at)) {}

  SchedulePolicy policy;
  std::map<std::uint64_t, double> metric_at;
  Progress progress;
  std::optional<double> best_metric;  // over the validations so far

  double metric(std::uint64_t batches) const {
    auto it = metric_at.find(batches);
    return it == metric_at.end() ? 1.0 : it->second;
  }

  // Whether `value` beats every metric so far (it becomes the best then).
  bool improves_best(double value) {
    if (best_metric && !(value < *best_metric)) return false;
    best_metric = value;
    return true;
  }

  Seq run_to(std::uint64_t target) {
    Seq seen;
    for (int guard = 0; guard < 10000; ++guard) {
      const Workload w = next_workload(policy, progress, target);
      if (w.kind == WorkloadKind::done) return seen;
      seen.push_back(describe(w));
      const bool best = w.kind == WorkloadKind::validate && improves_best(metric(w.start_batch));
      progress = record_completed(progress, w, best);
    }
    FAIL("the plan never reached done");
    return seen;
  }

  // The trial as a restart rebuilds it from the checkpoint at `batches`: the
  // newest validation at or before it, and the best metric up to there.
  SimulatedTrial restarted_at(std::uint64_t batches, const Seq& history) const {
    SimulatedTrial restarted(policy, metric_at);
    restarted.progress = {.batches_trained = batches, .last_checkpoint_at = static_cast<std::int64_t>(batches)};
    for (const auto& entry : history) {
      if (entry[0] != 'V') continue;
      const std::uint64_t at = std::stoull(entry.substr(1));
      if (at > batches) break;
      restarted.progress.last_validation_at = static_cast<std::int64_t>(at);
      (void)restarted.improves_best(restarted.metric(at));
    }
    return restarted;
  }
};

// Validations at 250, 500, 750 and 1000; the best so far at 250 and 750.
const std::map<std::uint64_t, double> kUpsAndDowns{{250, 0.5}, {500, 0.7}, {750, 0.4}, {1000, 0.9}};

}  // namespace

TEST_CASE("Workload sequences for fresh trials") {
  struct Case {
    const char* name;
    SchedulePolicy policy;
    std::uint64_t target;
    Seq expected;
  };
  const std::vector<Case> cases{
      {"unit 100, validation 250, target 1000",
       {100, 250, 0, false},
       1000,
       {"T0+100", "T100+100", "T200+50", "V250", "T250+100", "T350+100", "T450+50", "V500", "T500+100",
        "T600+100", "T700+50", "V750", "T750+100", "T850+100", "T950+50", "V1000", "C1000"}},
      {"only the final validation",
       {100, 0, 0, false},
       250,
       {"T0+100", "T100+100", "T200+50", "V250", "C250"}},
      {"validation and checkpoint periods interleave; validate before checkpointing",
       {100, 250, 300, false},
       600,
       {"T0+100", "T100+100", "T200+50", "V250", "T250+50", "C300", "T300+100", "T400+100", "V500", "T500+100",
        "V600", "C600"}},
      {"both periods due at once",
       {1000, 200, 200, false},
       400,
       {"T0+200", "V200", "C200", "T200+200", "V400", "C400"}},
      {"initial validation before any training",
       {100, 0, 0, true},
       200,
       {"V0", "T0+100", "T100+100", "V200", "C200"}},
      {"periodic validation at the target happens once",
       {100, 100, 0, false},
       200,
       {"T0+100", "V100", "T100+100", "V200", "C200"}},
      {"target shorter than the unit",
       {100, 0, 0, false},
       1,
       {"T0+1", "V1", "C1"}},
  };
  for (const auto& c : cases) {
    SECTION(c.name) {
      Progress progress;
      CHECK(run_to(c.policy, progress, c.target) == c.expected);
      CHECK(progress.batches_trained == c.target);
      CHECK(progress.last_validation_at == static_cast<std::int64_t>(c.target));
      CHECK(progress.last_checkpoint_at == static_cast<std::int64_t>(c.target));
    }
  }
}

TEST_CASE("Increasing targets continue from the progress so far") {
  const SchedulePolicy policy{100, 250, 0, false};
  Progress progress;
  CHECK(run_to(policy, progress, 100) == Seq{"T0+100", "V100", "C100"});
  // The validation at 100 restarts the period: the next periodic one is at 350.
  CHECK(run_to(policy, progress, 400) == Seq{"T100+100", "T200+100", "T300+50", "V350", "T350+50", "V400", "C400"});
  CHECK(run_to(policy, progress, 400).empty());
  CHECK(run_to(policy, progress, 650) == Seq{"T400+100", "T500+100", "T600+50", "V650", "C650"});
}

TEST_CASE("Initial validation is not repeated when a trial resumes") {
  const SchedulePolicy policy{100, 0, 0, true};
  Progress resumed{.batches_trained = 300, .last_validation_at = 300, .last_checkpoint_at = 300};
  CHECK(run_to(policy, resumed, 400) == Seq{"T300+100", "V400", "C400"});
  Progress validated_at_zero{.batches_trained = 0, .last_validation_at = 0, .last_checkpoint_at = -1};
  CHECK(run_to(policy, validated_at_zero, 100) == Seq{"T0+100", "V100", "C100"});
}

TEST_CASE("A trial restored from a checkpoint reruns the validation it lost") {
  const SchedulePolicy policy{100, 0, 0, false};
  Progress restored{.batches_trained = 200, .last_validation_at = -1, .last_checkpoint_at = 200};
  CHECK(run_to(policy, restored, 200) == Seq{"V200"});
}

TEST_CASE("record_completed advances only what the workload did") {
  const Progress start{.batches_trained = 10, .last_validation_at = 5, .last_checkpoint_at = 2};
  const auto trained = record_completed(start, {WorkloadKind::train, 7, 10});
  CHECK(trained.batches_trained == 17);
  CHECK(trained.last_validation_at == 5);
  CHECK(record_completed(start, {WorkloadKind::validate, 0, 10}).last_validation_at == 10);
  CHECK(record_completed(start, {WorkloadKind::checkpoint, 0, 10}).last_checkpoint_at == 10);
  CHECK_FALSE(record_completed(start, {WorkloadKind::validate, 0, 10}).last_validation_was_best);
  CHECK(record_completed(start, {WorkloadKind::validate, 0, 10}, true).last_validation_was_best);
  CHECK_FALSE(record_completed(start, {WorkloadKind::train, 7, 10}, true).last_validation_was_best);
  const auto done = record_completed(start, {WorkloadKind::done, 0, 10});
  CHECK(done.batches_trained == 10);
  CHECK(done.last_validation_at == 5);
}

TEST_CASE("The schedule policy converts config periods to batches") {
  config::ExperimentConfig config;
  config.global_batch_size = 32;
  config.records_per_epoch = 1000;
  config.scheduling_unit = 50;
  config.min_validation_period = config::Length{config::LengthUnit::epochs, 2};
  config.min_checkpoint_period = config::Length{config::LengthUnit::batches, 500};
  config.perform_initial_validation = true;
  config.checkpoint_policy = CheckpointPolicy::none;
  const SchedulePolicy policy = make_schedule_policy(config);
  CHECK(policy.scheduling_unit == 50);
  CHECK(policy.validation_period == 62);
  CHECK(policy.checkpoint_period == 500);
  CHECK(policy.initial_validation);
  CHECK(policy.checkpoint_policy == CheckpointPolicy::none);

  config::ExperimentConfig defaults;
  defaults.global_batch_size = 8;
  const SchedulePolicy plain = make_schedule_policy(defaults);
  CHECK(plain.scheduling_unit == 100);
  CHECK(plain.validation_period == 0);
  CHECK(plain.checkpoint_period == 0);
  CHECK_FALSE(plain.initial_validation);
  CHECK(plain.checkpoint_policy == CheckpointPolicy::best);
}

TEST_CASE("checkpoint_policy all: a checkpoint after every validation") {
  SimulatedTrial trial{{100, 250, 0, false, CheckpointPolicy::all}, kUpsAndDowns};
  CHECK(trial.run_to(1000) == Seq{"T0+100", "T100+100", "T200+50", "V250", "C250", "T250+100", "T350+100",
                                  "T450+50", "V500", "C500", "T500+100", "T600+100", "T700+50", "V750", "C750",
                                  "T750+100", "T850+100", "T950+50", "V1000", "C1000"});
}

TEST_CASE("checkpoint_policy best: a checkpoint after a validation better than every earlier one") {
  SimulatedTrial trial{{100, 250, 0, false, CheckpointPolicy::best}, kUpsAndDowns};
  // 500 and 1000 are worse than 250; 1000 is checkpointed as the target.
  CHECK(trial.run_to(1000) == Seq{"T0+100", "T100+100", "T200+50", "V250", "C250", "T250+100", "T350+100",
                                  "T450+50", "V500", "T500+100", "T600+100", "T700+50", "V750", "C750",
                                  "T750+100", "T850+100", "T950+50", "V1000", "C1000"});
}

TEST_CASE("checkpoint_policy none: validations alone never checkpoint, the target still does") {
  SimulatedTrial trial{{100, 250, 0, false, CheckpointPolicy::none}, {{250, 0.9}, {500, 0.8}, {750, 0.7}}};
  CHECK(trial.run_to(1000) == Seq{"T0+100", "T100+100", "T200+50", "V250", "T250+100", "T350+100", "T450+50",
                                  "V500", "T500+100", "T600+100", "T700+50", "V750", "T750+100", "T850+100",
                                  "T950+50", "V1000", "C1000"});
}

TEST_CASE("min_checkpoint_period checkpoints happen under every policy") {
  SECTION("none") {
    SimulatedTrial trial{{100, 250, 300, false, CheckpointPolicy::none}, kUpsAndDowns};
    CHECK(trial.run_to(600) == Seq{"T0+100", "T100+100", "T200+50", "V250", "T250+50", "C300", "T300+100",
                                   "T400+100", "V500", "T500+100", "V600", "C600"});
  }
  SECTION("best: a validation's checkpoint restarts the period, a worse one does not") {
    SimulatedTrial trial{{100, 250, 300, false, CheckpointPolicy::best}, kUpsAndDowns};
    CHECK(trial.run_to(1000) == Seq{"T0+100", "T100+100", "T200+50", "V250", "C250", "T250+100", "T350+100",
                                    "T450+50", "V500", "T500+50", "C550", "T550+100", "T650+100", "V750",
                                    "C750", "T750+100", "T850+100", "T950+50", "V1000", "C1000"});
  }
}

TEST_CASE("The initial validation is not followed by a checkpoint") {
  SimulatedTrial trial{{100, 100, 0, true, CheckpointPolicy::all}, {}};
  CHECK(trial.run_to(200) == Seq{"V0", "T0+100", "V100", "C100", "T100+100", "V200", "C200"});
}

TEST_CASE("A searcher target gets one checkpoint, also when its validation is the best") {
  SimulatedTrial trial{{100, 0, 0, false, CheckpointPolicy::best}, {{100, 0.5}, {300, 0.4}}};
  CHECK(trial.run_to(100) == Seq{"T0+100", "V100", "C100"});
  CHECK(trial.run_to(300) == Seq{"T100+100", "T200+100", "V300", "C300"});
  CHECK(trial.run_to(300).empty());
}

TEST_CASE("A trial restarted from any of its checkpoints continues as if never stopped") {
  for (auto checkpoint_policy : {CheckpointPolicy::best, CheckpointPolicy::all, CheckpointPolicy::none}) {
    SimulatedTrial uninterrupted{{100, 250, 300, false, checkpoint_policy}, kUpsAndDowns};
    const Seq whole = uninterrupted.run_to(1000);
    for (std::size_t i = 0; i < whole.size(); ++i) {
      if (whole[i][0] != 'C') continue;
      CAPTURE(static_cast<int>(checkpoint_policy), whole[i]);
      SimulatedTrial restarted = uninterrupted.restarted_at(std::stoull(whole[i].substr(1)), whole);
      CHECK(restarted.run_to(1000) == Seq(whole.begin() + static_cast<std::ptrdiff_t>(i) + 1, whole.end()));
    }
  }
}

TEST_CASE("follow_ups are the plan's validation and checkpoint at the target, and nothing short of it") {
  const SchedulePolicy policy{100, 250, 0, false, CheckpointPolicy::best};
  const Progress start{};
  const Progress at_990{.batches_trained = 990, .last_validation_at = 750, .last_checkpoint_at = 750};
  auto described = [](const std::vector<Workload>& chain) {
    Seq seen;
    for (const auto& w : chain) seen.push_back(describe(w));
    return seen;
  };
  CHECK(described(follow_ups(policy, start, 1000, next_workload(policy, start, 1000))).empty());
  CHECK(described(follow_ups(policy, at_990, 1000, {WorkloadKind::train, 10, 990})) == Seq{"V1000", "C1000"});
  const Progress validated{.batches_trained = 1000, .last_validation_at = 1000, .last_checkpoint_at = 750};
  CHECK(described(follow_ups(policy, {.batches_trained = 1000, .last_validation_at = 750, .last_checkpoint_at = 750},
                             1000, {WorkloadKind::validate, 0, 1000})) == Seq{"C1000"});
  CHECK(described(follow_ups(policy, validated, 1000, {WorkloadKind::checkpoint, 0, 1000})).empty());
  // A periodic validation short of the target leaves its checkpoint to the searcher's metric.
  CHECK(described(follow_ups(policy, {.batches_trained = 250}, 1000, {WorkloadKind::validate, 0, 250})).empty());
}

TEST_CASE("A chain of follow_ups is what the plan runs next, whatever the policy and metrics") {
  for (const auto checkpoint_policy : {CheckpointPolicy::all, CheckpointPolicy::best, CheckpointPolicy::none}) {
    for (const bool initial : {false, true}) {
      const SchedulePolicy policy{100, 250, 400, initial, checkpoint_policy};
      SimulatedTrial trial{policy, kUpsAndDowns};
      const Seq whole = trial.run_to(1000);
      SimulatedTrial replay{policy, kUpsAndDowns};
      for (std::size_t i = 0; i < whole.size(); ++i) {
        const auto w = next_workload(policy, replay.progress, 1000);
        const auto chain = follow_ups(policy, replay.progress, 1000, w);
        INFO("policy " << static_cast<int>(checkpoint_policy) << ", workload " << whole[i]);
        const bool ends_at_target = record_completed(replay.progress, w).batches_trained >= 1000;
        CHECK(chain.empty() == (!ends_at_target || i + 1 == whole.size()));
        for (std::size_t k = 0; k < chain.size(); ++k) {
          REQUIRE(i + 1 + k < whole.size());
          CHECK(describe(chain[k]) == whole[i + 1 + k]);
        }
        const bool best = w.kind == WorkloadKind::validate && replay.improves_best(replay.metric(w.start_batch));
        replay.progress = record_completed(replay.progress, w, best);
      }
    }
  }
}
