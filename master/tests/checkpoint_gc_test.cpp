#include <catch2/catch.hpp>

#include "master/checkpoint_gc.hpp"
#include "master/tests/lifecycle_fixture.hpp"
#include "runtime/config/config_parser.hpp"

using namespace volador;
using namespace volador::master;
using namespace volador::master::testing;

TEST_CASE("The checkpoint GC keeps the checkpoint an unfinished trial starts from until it has one of its own") {
  LifecycleFixture f;
  // Trial 10 checkpointed three times: its policy (latest 1, best 1) gives up the one after 5 batches...
  const auto copied = f.checkpoint(10, 5, 0.1);
  const auto middle = f.checkpoint(10, 10, 0.2);
  f.checkpoint(10, 15, 0.9);
  // ... which trial 11, a pbt copy that has not checkpointed yet, starts from.
  auto copy = trial_record(11, 1, RunState::active);
  copy.warm_start = copied;
  copy.warm_start_trial = 10;
  REQUIRE(f.journal->put_trial(copy));
  const auto config = std::get<config::ExperimentConfig>(config::parse_experiment_config(kConfig, "q.yaml"));
  auto gc = load_checkpoint_index(*f.journal, 1, config).value();
  CHECK(collect_checkpoint_garbage(*f.journal, *f.store, gc).value() == 1);
  CHECK(f.on_disk(copied));
  CHECK_FALSE(f.on_disk(middle));
  SECTION("once the copy has a checkpoint of its own, the one it started from goes") {
    f.checkpoint(11, 10, 0.5);
    CHECK(collect_checkpoint_garbage(*f.journal, *f.store, gc).value() == 1);
    CHECK_FALSE(f.on_disk(copied));
  }
  SECTION("once the copy has ended, likewise") {
    copy.state = RunState::completed;
    REQUIRE(f.journal->put_trial(copy));
    gc.index.end_trial(11);
    CHECK(collect_checkpoint_garbage(*f.journal, *f.store, gc).value() == 1);
    CHECK_FALSE(f.on_disk(copied));
  }
}
