#include <catch2/catch.hpp>

#include "master/checkpoint_gc.hpp"
#include "master/model_registry.hpp"
#include "master/tests/lifecycle_fixture.hpp"
#include "runtime/config/config_parser.hpp"

using namespace volador;
using namespace volador::master;
using namespace volador::master::testing;

TEST_CASE("A model's versions number 1, 2, ... and carry the experiment, trial, hyperparameters and metrics") {
  LifecycleFixture f;
  const auto first = f.checkpoint(10, 5, 0.75);
  const auto second = f.checkpoint(20, 5, 0.5);
  REQUIRE(create_model(*f.journal, "mnist-cnn", "digits", kBob, 100).value().num_versions == 0);
  auto v1 = register_model_version(*f.journal, f.data_dir, "mnist-cnn", first, kBob, 200);
  auto v2 = register_model_version(*f.journal, f.data_dir, "mnist-cnn", second, kAdmin, 300);
  REQUIRE(v1);
  REQUIRE(v2);
  CHECK(v1->version == 1);
  CHECK(v2->version == 2);
  CHECK(v1->experiment_id == 1);
  CHECK(v1->trial_id == 10);
  CHECK(v1->batches == 5);
  CHECK(v1->metrics == MetricMap{{"accuracy", 0.75}});
  CHECK(nlohmann::json::parse(v1->hparams) == nlohmann::json{{"lr", 1.0}});
  CHECK(v1->path == f.store->path(first).value().string());
  CHECK(v2->registered_by == "admin");

  auto detail = describe_model(*f.journal, "mnist-cnn");
  REQUIRE(detail);
  CHECK(detail->summary.owner == "bob");
  CHECK(detail->summary.description == "digits");
  REQUIRE(detail->versions.size() == 2);
  CHECK(detail->versions[1].checkpoint_uuid == second);
  auto list = list_models(*f.journal);
  REQUIRE(list);
  REQUIRE(list->models.size() == 1);
  CHECK(list->models[0].num_versions == 2);
}

TEST_CASE("Model names, duplicates, unknown models and checkpoints and other users are refused, saying why") {
  LifecycleFixture f;
  const auto uuid = f.checkpoint(10, 5);
  CHECK(create_model(*f.journal, "", "", kBob, 0).error().code == ErrorCode::invalid_argument);
  CHECK(create_model(*f.journal, "a/b", "", kBob, 0).error().message.find("'/' is not allowed") != std::string::npos);
  CHECK(create_model(*f.journal, std::string(65, 'a'), "", kBob, 0).error().code == ErrorCode::invalid_argument);
  REQUIRE(create_model(*f.journal, "m", "", kBob, 0));
  CHECK(create_model(*f.journal, "m", "", kAdmin, 0).error().code == ErrorCode::already_exists);
  CHECK(register_model_version(*f.journal, f.data_dir, "nope", uuid, kBob, 0).error().code == ErrorCode::not_found);
  CHECK(register_model_version(*f.journal, f.data_dir, "m", "0000", kBob, 0).error().code == ErrorCode::not_found);
  auto other = register_model_version(*f.journal, f.data_dir, "m", uuid, kCarol, 0);
  REQUIRE_FALSE(other);
  CHECK(other.error().code == ErrorCode::permission_denied);
  CHECK(other.error().message == "model 'm' belongs to 'bob': only its owner or an admin can register versions of it");
  auto deleted = f.journal->checkpoint(uuid).value();
  deleted.state = storage::CheckpointState::deleted;
  REQUIRE(f.journal->put_checkpoint(deleted));
  CHECK(register_model_version(*f.journal, f.data_dir, "m", uuid, kBob, 0).error().code == ErrorCode::invalid_argument);
}

TEST_CASE("The checkpoint GC never deletes a registered checkpoint") {
  LifecycleFixture f;
  // Three checkpoints of an ended trial: the policy keeps its best and latest (1 each), so the worst goes.
  const auto worst = f.checkpoint(10, 5, 0.1);
  const auto registered = f.checkpoint(10, 10, 0.2);
  f.checkpoint(10, 15, 0.9);
  auto config = std::get<config::ExperimentConfig>(config::parse_experiment_config(kConfig, "q.yaml"));
  SECTION("unregistered, the two worse ones go") {
    auto index = load_checkpoint_index(*f.journal, 1, config).value();
    CHECK(collect_checkpoint_garbage(*f.journal, *f.store, index).value() == 2);
    CHECK_FALSE(f.on_disk(registered));
  }
  SECTION("registered, it stays with its record active") {
    REQUIRE(create_model(*f.journal, "m", "", kBob, 0));
    REQUIRE(register_model_version(*f.journal, f.data_dir, "m", registered, kBob, 0));
    auto index = load_checkpoint_index(*f.journal, 1, config).value();
    CHECK(collect_checkpoint_garbage(*f.journal, *f.store, index).value() == 1);
    CHECK(f.on_disk(registered));
    CHECK(f.journal->checkpoint(registered).value().state == storage::CheckpointState::active);
    CHECK_FALSE(f.on_disk(worst));
  }
}
