#include <catch2/catch.hpp>

#include <string>
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

// Runs workloads until done, returning their descriptions; `progress` carries over.
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
  const SchedulePolicy policy = make_schedule_policy(config);
  CHECK(policy.scheduling_unit == 50);
  CHECK(policy.validation_period == 62);
  CHECK(policy.checkpoint_period == 500);
  CHECK(policy.initial_validation);

  config::ExperimentConfig defaults;
  defaults.global_batch_size = 8;
  const SchedulePolicy plain = make_schedule_policy(defaults);
  CHECK(plain.scheduling_unit == 100);
  CHECK(plain.validation_period == 0);
  CHECK(plain.checkpoint_period == 0);
  CHECK_FALSE(plain.initial_validation);
}
