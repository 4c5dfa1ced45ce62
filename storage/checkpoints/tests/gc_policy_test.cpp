#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "storage/checkpoints/gc_policy.hpp"

using namespace volador;
using namespace volador::checkpoints;

namespace {

constexpr std::optional<double> kNoMetric;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

GcCandidate ckpt(std::string uuid, std::uint64_t trial, std::uint64_t batches, std::optional<double> metric,
                 bool in_use = false) {
  return {.uuid = std::move(uuid), .trial_id = trial, .batches = batches, .metric = metric, .in_use = in_use};
}

GcPolicy keep(std::uint32_t experiment_best, std::uint32_t trial_best, std::uint32_t trial_latest,
              bool smaller_is_better = true) {
  return {.save_experiment_best = experiment_best,
          .save_trial_best = trial_best,
          .save_trial_latest = trial_latest,
          .smaller_is_better = smaller_is_better};
}

// Trial 1: a1 (100, 0.5), a2 (200, 0.3), a3 (300, 0.4), a4 (400, no metric).
// Trial 2: b1 (100, 0.2), b2 (200, 0.6), b3 (300, 0.1).
const std::vector<GcCandidate> kTwoTrials{
    ckpt("a1", 1, 100, 0.5), ckpt("a2", 1, 200, 0.3), ckpt("a3", 1, 300, 0.4), ckpt("a4", 1, 400, kNoMetric),
    ckpt("b1", 2, 100, 0.2), ckpt("b2", 2, 200, 0.6), ckpt("b3", 2, 300, 0.1),
};

struct Case {
  const char* name;
  std::vector<GcCandidate> checkpoints;
  GcPolicy policy;
  std::set<std::string> deleted;
};

}  // namespace

TEST_CASE("checkpoints_to_delete follows Determined's GC rules") {
  const Case cases[] = {
      {"nothing to collect", {}, keep(3, 3, 3), {}},
      {"all zero deletes everything", kTwoTrials, keep(0, 0, 0), {"a1", "a2", "a3", "a4", "b1", "b2", "b3"}},
      {"defaults: each trial's best and latest", kTwoTrials, keep(0, 1, 1), {"a1", "a3", "b1", "b2"}},
      {"trial latest only", kTwoTrials, keep(0, 0, 2), {"a1", "a2", "b1"}},
      {"trial best only", kTwoTrials, keep(0, 2, 0), {"a1", "a4", "b2"}},
      {"experiment best only, may come from one trial", kTwoTrials, keep(2, 0, 0), {"a1", "a2", "a3", "a4", "b2"}},
      {"experiment best 1 crosses trials", kTwoTrials, keep(1, 0, 0), {"a1", "a2", "a3", "a4", "b1", "b2"}},
      {"larger is better flips best", kTwoTrials, keep(1, 1, 0, false), {"a2", "a3", "a4", "b1", "b3"}},
      {"experiment best, trial best and latest combine", kTwoTrials, keep(2, 1, 1), {"a1", "a3", "b2"}},
      {"counts above the checkpoints keep all measured", kTwoTrials, keep(10, 10, 0), {"a4"}},
      {"latest keeps a checkpoint without a metric", kTwoTrials, keep(0, 0, 1), {"a1", "a2", "a3", "b1", "b2"}},
      {"no metric is never a best, even with room",
       {ckpt("m", 1, 100, 1.0), ckpt("n1", 1, 200, kNoMetric), ckpt("n2", 1, 300, kNaN)},
       keep(5, 5, 0),
       {"n1", "n2"}},
      {"in use survives a zero policy",
       {ckpt("x", 1, 100, 0.1), ckpt("y", 1, 200, 0.2, /*in_use=*/true)},
       keep(0, 0, 0),
       {"x"}},
      {"equal metrics prefer fewer batches",
       {ckpt("late", 1, 200, 0.5), ckpt("early", 1, 100, 0.5)},
       keep(0, 1, 0),
       {"late"}},
      {"equal metric and batches prefer the smaller trial id",
       {ckpt("t2", 2, 100, 0.5), ckpt("t1", 1, 100, 0.5)},
       keep(1, 0, 0),
       {"t2"}},
      {"equal batches for latest prefer the smaller uuid",
       {ckpt("u2", 1, 100, kNoMetric), ckpt("u1", 1, 100, kNoMetric)},
       keep(0, 0, 1),
       {"u2"}},
      {"a repeated uuid is kept when any copy is kept",
       {ckpt("same", 1, 100, 0.9), ckpt("best", 1, 200, 0.1), ckpt("same", 2, 300, kNoMetric)},
       keep(0, 1, 1),
       {}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    CHECK(checkpoints_to_delete(c.checkpoints, c.policy) == c.deleted);
  }
}

TEST_CASE("checkpoints_to_delete does not depend on the input order") {
  std::vector<GcCandidate> reversed(kTwoTrials.rbegin(), kTwoTrials.rend());
  for (const GcPolicy& policy : {keep(0, 1, 1), keep(2, 1, 1), keep(1, 2, 0, false)}) {
    CHECK(checkpoints_to_delete(reversed, policy) == checkpoints_to_delete(kTwoTrials, policy));
  }
}

TEST_CASE("GcPolicy::of takes the experiment's numbers and searcher direction") {
  config::ExperimentConfig config;
  SECTION("absent checkpoint_storage: Determined's defaults") {
    const GcPolicy policy = GcPolicy::of(config);
    CHECK(policy.save_experiment_best == 0);
    CHECK(policy.save_trial_best == 1);
    CHECK(policy.save_trial_latest == 1);
    CHECK(policy.smaller_is_better);
  }
  SECTION("given numbers, larger is better") {
    config.checkpoint_storage.emplace();
    config.checkpoint_storage->save_experiment_best = 3;
    config.checkpoint_storage->save_trial_best = 0;
    config.checkpoint_storage->save_trial_latest = 2;
    config.searcher.smaller_is_better = false;
    const GcPolicy policy = GcPolicy::of(config);
    CHECK(policy.save_experiment_best == 3);
    CHECK(policy.save_trial_best == 0);
    CHECK(policy.save_trial_latest == 2);
    CHECK_FALSE(policy.smaller_is_better);
  }
}
