// The manual's examples, every default, every field read, the error format.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include "runtime/config/config_parser.hpp"
#include "runtime/config/tests/config_test_support.hpp"

using namespace volador::config;
using namespace volador::config::testing;
using volador::hparams::ConstParam;

namespace {

std::string read_fixture(const std::string& name) {
  std::ifstream in(std::string(VOLADOR_SOURCE_DIR) + "/runtime/config/tests/fixtures/" + name);
  REQUIRE(in);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

const nlohmann::json& constant(const ExperimentConfig& config, const std::string& name) {
  return std::get<ConstParam>(config.hyperparameters.at(name).param).val;
}

}  // namespace

TEST_CASE("the manual's mnist example parses", "[config][manual]") {
  const ExperimentConfig config = parse_ok(read_fixture("mnist_pytorch_const.yaml"));
  CHECK(config.name == "mnist_pytorch_const");
  CHECK(config.data == nlohmann::json{{"url", "https://s3-us-west-2.amazonaws.com/determined-ai-test-data/pytorch_mnist.tar.gz"}});
  CHECK(config.global_batch_size == 64);
  CHECK(constant(config, "learning_rate") == 1.0);
  CHECK(constant(config, "dropout2") == 0.5);
  CHECK(constant(config, "n_filters1") == 32);
  CHECK(config.records_per_epoch == 50'000u);
  CHECK(config.searcher.name == "single");
  CHECK(config.searcher.metric == "validation_loss");
  CHECK(config.searcher.max_length.unit == LengthUnit::epochs);
  CHECK(config.searcher.max_length.value == 1);
  CHECK(config.searcher.smaller_is_better);
  CHECK(config.entrypoint.text == "model_def:MNistTrial");
  CHECK_FALSE(config.checkpoint_storage.has_value());
}

TEST_CASE("the manual's fashion_mnist example parses", "[config][manual]") {
  const ExperimentConfig config = parse_ok(read_fixture("fashion_mnist_keras_const.yaml"));
  CHECK(config.name == "fashion_mnist_keras_const");
  CHECK(config.global_batch_size == 32);
  CHECK(constant(config, "dense1") == 128);
  CHECK(config.records_per_epoch == 50000u);
  CHECK(config.searcher.metric == "val_accuracy");
  CHECK(config.searcher.max_length.value == 5);
  CHECK(config.entrypoint.text == "model_def:FashionMNISTTrial");
  CHECK_FALSE(config.checkpoint_storage.has_value());
}

TEST_CASE("the manual's imagenet example is refused only for its misspelled key", "[config][manual]") {
  CHECK(parse_errors(read_fixture("imagenet_const.yaml")) ==
        std::vector<std::string>{"distributed.yaml:14:1: records1281167epoch: unknown field; "
                                 "did you mean \"records_per_epoch\"?"});
}

TEST_CASE("the imagenet example parses once its key is spelled right", "[config][manual]") {
  std::string yaml = read_fixture("imagenet_const.yaml");
  yaml.replace(yaml.find("records1281167epoch"), std::string("records1281167epoch").size(),
               "records_per_epoch");
  const ExperimentConfig config = parse_ok(yaml);
  CHECK(config.records_per_epoch == 12181167u);
  CHECK(config.description == "ImageNet_PyTorch_const");
  CHECK(config.max_restarts == 0);
  CHECK_FALSE(config.searcher.smaller_is_better);
  CHECK(constant(config, "weight_decay") == 1e-4);
  CHECK(constant(config, "pretrained") == true);
  CHECK(constant(config, "data") == "/mnt/data");
  CHECK(constant(config, "start-epoch") == 0);
}

TEST_CASE("absent fields take the manual's defaults", "[config][defaults]") {
  const ExperimentConfig config = parse_ok(kBase);
  CHECK(config.description.empty());
  CHECK(config.labels == nlohmann::json::array());
  CHECK(config.data == nlohmann::json::object());
  CHECK(config.workspace.empty());
  CHECK(config.project.empty());
  CHECK(config.hyperparameters.size() == 1);
  CHECK(config.searcher.smaller_is_better);
  CHECK(config.searcher.max_trials == 0);
  CHECK(config.searcher.max_concurrent_trials == 16);
  CHECK(config.searcher.mode == "standard");
  CHECK(config.searcher.divisor == 4);
  CHECK(config.searcher.max_rungs == 5);
  CHECK(config.searcher.extra == nlohmann::json::object());
  CHECK_FALSE(config.records_per_epoch.has_value());
  CHECK(config.scheduling_unit == 100);
  CHECK_FALSE(config.min_validation_period.has_value());
  CHECK_FALSE(config.min_checkpoint_period.has_value());
  CHECK(config.checkpoint_policy == CheckpointPolicy::best);
  CHECK_FALSE(config.perform_initial_validation);
  CHECK(config.max_restarts == 5);
  CHECK_FALSE(config.checkpoint_storage.has_value());
  CHECK(config.resources.slots_per_trial == 1);
  CHECK_FALSE(config.resources.shm_size);
  CHECK(config.resources.resource_pool.empty());
  CHECK(config.bind_mounts.empty());
  CHECK(config.environment.image.empty());
  CHECK_FALSE(config.environment.force_pull_image);
  CHECK_FALSE(config.environment.registry_auth.has_value());
  CHECK(config.environment.environment_variables.empty());
  CHECK_FALSE(config.experiment_seed.has_value());
}

TEST_CASE("checkpoint storage defaults", "[config][defaults]") {
  const ExperimentConfig config = parse_ok(with("checkpoint_storage:\n  host_path: /ckpt\n"));
  REQUIRE(config.checkpoint_storage.has_value());
  CHECK(config.checkpoint_storage->type == "shared_fs");
  CHECK(config.checkpoint_storage->host_path == "/ckpt");
  CHECK(config.checkpoint_storage->save_experiment_best == 0);
  CHECK(config.checkpoint_storage->save_trial_best == 1);
  CHECK(config.checkpoint_storage->save_trial_latest == 1);
}

TEST_CASE("every field is read", "[config]") {
  const ExperimentConfig config = parse_ok(R"(
name: full
description: every field
labels: [alice, vision]
data:
  url: s3://bucket/data
  shards: [1, 2]
workspace: research
project: resnets
entrypoint: model_def:FullTrial
hyperparameters:
  global_batch_size: 64
  lr: {type: log, base: 10, minval: -5, maxval: -1, count: 5}
searcher:
  name: adaptive_asha
  metric: accuracy
  smaller_is_better: false
  max_length: {records: 50000}
  max_trials: 20
  max_concurrent_trials: 0
  mode: aggressive
  divisor: 3
  max_rungs: 4
records_per_epoch: 10000
scheduling_unit: 50
min_validation_period: {epochs: 2}
min_checkpoint_period: {batches: 1000}
checkpoint_policy: none
perform_initial_validation: true
max_restarts: 0
checkpoint_storage:
  type: s3
  bucket: ckpts
  access_key: AK
  secret_key: SK
  prefix: runs/
  endpoint_url: http://minio:9000
  save_experiment_best: 2
  save_trial_best: 0
  save_trial_latest: 3
resources:
  slots_per_trial: 8
  shm_size: 128M
  resource_pool: a100
bind_mounts:
  - host_path: /data
    container_path: /data
  - host_path: /mnt/ro
    container_path: /mnt/ro
    read_only: true
environment:
  image: volador/pytorch:2.1
  force_pull_image: yes
  registry_auth:
    username: u
    password: p
    serveraddress: registry.example.com
  environment_variables:
    - NCCL_DEBUG=INFO
    - EMPTY=
experiment_seed: 2147483647
)");
  CHECK(config.description == "every field");
  CHECK(config.labels == nlohmann::json{"alice", "vision"});
  CHECK(config.data == nlohmann::json{{"url", "s3://bucket/data"}, {"shards", {1, 2}}});
  CHECK(config.workspace == "research");
  CHECK(config.project == "resnets");
  CHECK(config.entrypoint.text == "model_def:FullTrial");
  const auto& lr = std::get<volador::hparams::LogParam>(config.hyperparameters.at("lr").param);
  CHECK(lr.base == 10);
  CHECK(lr.minval == -5);
  CHECK(lr.maxval == -1);
  CHECK(lr.count == 5u);
  CHECK(config.searcher.name == "adaptive_asha");
  CHECK_FALSE(config.searcher.smaller_is_better);
  CHECK(config.searcher.max_length.unit == LengthUnit::records);
  CHECK(config.searcher.max_length.value == 50000);
  CHECK(config.searcher.max_trials == 20);
  CHECK(config.searcher.max_concurrent_trials == 0);
  CHECK(config.searcher.mode == "aggressive");
  CHECK(config.searcher.divisor == 3);
  CHECK(config.searcher.max_rungs == 4);
  CHECK(config.records_per_epoch == 10000u);
  CHECK(config.scheduling_unit == 50);
  REQUIRE(config.min_validation_period.has_value());
  CHECK(config.min_validation_period->unit == LengthUnit::epochs);
  CHECK(config.min_validation_period->value == 2);
  REQUIRE(config.min_checkpoint_period.has_value());
  CHECK(config.min_checkpoint_period->unit == LengthUnit::batches);
  CHECK(config.min_checkpoint_period->value == 1000);
  CHECK(config.checkpoint_policy == CheckpointPolicy::none);
  CHECK(config.perform_initial_validation);
  CHECK(config.max_restarts == 0);
  REQUIRE(config.checkpoint_storage.has_value());
  const CheckpointStorage& storage = *config.checkpoint_storage;
  CHECK(storage.type == "s3");
  CHECK(storage.bucket == "ckpts");
  CHECK(storage.access_key == "AK");
  CHECK(storage.secret_key == "SK");
  CHECK(storage.prefix == "runs/");
  CHECK(storage.endpoint_url == "http://minio:9000");
  CHECK(storage.save_experiment_best == 2);
  CHECK(storage.save_trial_best == 0);
  CHECK(storage.save_trial_latest == 3);
  CHECK(config.resources.slots_per_trial == 8);
  CHECK(config.resources.shm_size == 128u << 20);
  CHECK(config.resources.resource_pool == "a100");
  REQUIRE(config.bind_mounts.size() == 2);
  CHECK(config.bind_mounts[0].host_path == "/data");
  CHECK(config.bind_mounts[0].container_path == "/data");
  CHECK_FALSE(config.bind_mounts[0].read_only);
  CHECK(config.bind_mounts[1].read_only);
  CHECK(config.environment.image == "volador/pytorch:2.1");
  CHECK(config.environment.force_pull_image);
  REQUIRE(config.environment.registry_auth.has_value());
  CHECK(config.environment.registry_auth->username == "u");
  CHECK(config.environment.registry_auth->password == "p");
  CHECK(config.environment.registry_auth->serveraddress == "registry.example.com");
  CHECK(config.environment.environment_variables == std::vector<std::string>{"NCCL_DEBUG=INFO", "EMPTY="});
  CHECK(config.experiment_seed == 2147483647u);
}

TEST_CASE("checkpoint_policy is best, all or none", "[config]") {
  CHECK(parse_ok(with("checkpoint_policy: best\n")).checkpoint_policy == CheckpointPolicy::best);
  CHECK(parse_ok(with("checkpoint_policy: all\n")).checkpoint_policy == CheckpointPolicy::all);
  CHECK(parse_ok(with("checkpoint_policy: none\n")).checkpoint_policy == CheckpointPolicy::none);
  CHECK(parse_ok(with("checkpoint_policy: 'none'\n")).checkpoint_policy == CheckpointPolicy::none);
}

TEST_CASE("other storage types are read", "[config]") {
  auto gcs = parse_ok(with("checkpoint_storage: {type: gcs, bucket: b, prefix: p}\n")).checkpoint_storage;
  REQUIRE(gcs.has_value());
  CHECK(gcs->type == "gcs");
  CHECK(gcs->bucket == "b");
  CHECK(gcs->prefix == "p");
  auto azure = parse_ok(with("checkpoint_storage: {type: azure, container: c, account_url: u, credential: k}\n"))
                   .checkpoint_storage;
  REQUIRE(azure.has_value());
  CHECK(azure->container == "c");
  CHECK(azure->account_url == "u");
  CHECK(azure->credential == "k");
  auto shared = parse_ok(with("checkpoint_storage: {type: shared_fs, host_path: /m, storage_path: sub}\n"))
                    .checkpoint_storage;
  REQUIRE(shared.has_value());
  CHECK(shared->storage_path == "sub");
}

TEST_CASE("errors print as FILE:LINE:COL: FIELD: MESSAGE", "[config][format]") {
  CHECK(ConfigError{"d.yaml", 7, 15, "searcher.max_trials", "expected a positive integer, got \"ten\""}
            .to_string() == "d.yaml:7:15: searcher.max_trials: expected a positive integer, got \"ten\"");
  CHECK(ConfigError{"d.yaml", 0, 0, "name", "missing required field"}.to_string() ==
        "d.yaml: name: missing required field");
  CHECK(ConfigError{"d.yaml", 2, 3, "", "bad"}.to_string() == "d.yaml:2:3: bad");
  CHECK(format_errors({{"a", 1, 2, "x", "m"}, {"a", 3, 4, "y", "n"}}) == "a:1:2: x: m\na:3:4: y: n\n");
}

TEST_CASE("the issue's example error", "[config][format]") {
  CHECK(parse_errors("name: t\n"
                     "entrypoint: e\n"
                     "hyperparameters: {global_batch_size: 1, x: {type: int, minval: 1, maxval: 2}}\n"
                     "searcher:\n"
                     "  name: random\n"
                     "  metric: loss\n"
                     "  max_trials: ten\n"
                     "  max_length: {batches: 1}\n") ==
        std::vector<std::string>{
            "distributed.yaml:7:15: searcher.max_trials: expected a positive integer, got \"ten\""});
}

TEST_CASE("every error is reported at once, in document order", "[config][format]") {
  CHECK(parse_errors("entrypoint: e\n"
                     "max_restarts: many\n"
                     "hyperparameters:\n"
                     "  global_batch_size: 0\n"
                     "searcher: {name: single, metric: m, max_length: {batchs: 1}}\n"
                     "resources: {slots_per_trial: 0}\n") ==
        std::vector<std::string>{
            "distributed.yaml: name: missing required field",
            "distributed.yaml:2:15: max_restarts: expected a non-negative integer, got \"many\"",
            "distributed.yaml:4:22: hyperparameters.global_batch_size: expected a constant positive "
            "integer, got 0",
            "distributed.yaml:5:50: searcher.max_length.batchs: unknown field; did you mean \"batches\"?",
            "distributed.yaml:6:30: resources.slots_per_trial: expected a positive integer, got 0",
        });
}

TEST_CASE("the entrypoint is classified once when parsed and a malformed one is an error at its place",
          "[config][format]") {
  const std::string rest =
      "name: e\n"
      "hyperparameters: {global_batch_size: 8}\n"
      "searcher: {name: single, metric: m, max_length: {batches: 1}}\n";
  const auto command = parse_ok("entrypoint: python3 train.py --lr 0.1\n" + rest);
  CHECK(command.entrypoint.text == "python3 train.py --lr 0.1");
  CHECK(std::get<volador::command::CommandEntrypoint>(command.entrypoint.kind).argv ==
        std::vector<std::string>{"python3", "train.py", "--lr", "0.1"});
  const auto trial = parse_ok("entrypoint: model_def:MyTrial\n" + rest);
  CHECK(std::get<volador::command::PythonTrialEntrypoint>(trial.entrypoint.kind).class_name == "MyTrial");
  CHECK(parse_errors("entrypoint: python3 'train.py\n" + rest) ==
        std::vector<std::string>{"distributed.yaml:1:13: entrypoint: unterminated ' opened at column 9"});
  CHECK(parse_errors("entrypoint: 'native: '\n" + rest) ==
        std::vector<std::string>{"distributed.yaml:1:13: entrypoint: `native:` names no trial; write native:<name>"});
}
