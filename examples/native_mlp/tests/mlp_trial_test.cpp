#include <catch2/catch.hpp>

#include <filesystem>
#include <random>

#include "examples/native_mlp/mlp_model.hpp"
#include "examples/native_mlp/mlp_trial.hpp"
#include "examples/native_mlp/synthetic_data.hpp"
#include "runtime/collective/shm_communicator.hpp"
#include "runtime/collective/tests/group_harness.hpp"
#include "runtime/trial_api/trial_runner.hpp"

using namespace volador;
using namespace volador::examples;

TEST_CASE("The MLP gradient matches finite differences") {
  MlpModel model({5, 4, 3}, 7);
  std::mt19937 rng(3);
  std::normal_distribution<float> n;
  std::vector<float> x(2 * 5);
  for (auto& v : x) v = n(rng);
  std::vector<float> y{0, 2};
  std::vector<float> grad(model.shape().parameter_count());
  model.evaluate(x, y, 2, grad);
  auto params = model.parameters();
  for (std::size_t i = 0; i < params.size(); i += 3) {
    const float saved = params[i];
    const float h = 1e-2f;
    params[i] = saved + h;
    const double up = model.evaluate(x, y, 2, {}).loss;
    params[i] = saved - h;
    const double down = model.evaluate(x, y, 2, {}).loss;
    params[i] = saved;
    CHECK(grad[i] == Approx((up - down) / (2 * h)).margin(2e-3));
  }
}

TEST_CASE("The example trial learns the synthetic task far above chance") {
  trial_api::TrialRegistry registry;
  register_example_trials(registry);
  trial_api::TrialContext ctx(nlohmann::json{{"learning_rate", 0.05}, {"hidden_units", 32}},
                              nlohmann::json{{"train_records", 3000}, {"validation_records", 600}}, 11, 32);
  auto trial = registry.create("native:mlp_classifier", ctx);
  REQUIRE(trial.has_value());
  auto runner = trial_api::TrialRunner::create(std::move(*trial), ctx);
  REQUIRE(runner.has_value());
  auto before = runner->validate();
  REQUIRE(runner->train(0, 400).has_value());
  auto after = runner->validate();
  REQUIRE(after.has_value());
  INFO("before " << before->at("accuracy") << " after " << after->at("accuracy"));
  CHECK(before->at("accuracy") < 0.3);
  CHECK(after->at("accuracy") > 0.6);  // chance is 0.1 with 10 classes
  CHECK(after->at("validation_loss") < before->at("validation_loss"));
}

TEST_CASE("The example trial names a missing hyperparameter") {
  trial_api::TrialRegistry registry;
  register_example_trials(registry);
  trial_api::TrialContext ctx(nlohmann::json{{"learning_rate", 0.05}}, nlohmann::json::object(), 1, 32);
  auto trial = registry.create("native:mlp_classifier", ctx);
  REQUIRE_FALSE(trial.has_value());
  CHECK(trial.error().message.find("hidden_units") != std::string::npos);
}

TEST_CASE("A trial saved and restored mid-training continues bit for bit") {
  trial_api::TrialRegistry registry;
  register_example_trials(registry);
  trial_api::TrialContext ctx(nlohmann::json{{"learning_rate", 0.05}, {"hidden_units", 16}},
                              nlohmann::json{{"train_records", 640}, {"validation_records", 200}}, 5, 32);
  auto make = [&] { return std::move(trial_api::TrialRunner::create(std::move(*registry.create("native:mlp_classifier", ctx)), ctx).value()); };
  auto straight = make();
  REQUIRE(straight.train(0, 50).has_value());
  auto expected = straight.train(50, 30).value();

  auto first = make();
  REQUIRE(first.train(0, 50).has_value());
  auto dir = std::filesystem::temp_directory_path() / ("volador-mlp-ckpt-" + std::to_string(std::random_device{}()));
  std::filesystem::create_directories(dir);
  REQUIRE(first.save(dir));
  auto resumed = make();
  REQUIRE(resumed.load(dir));
  auto got = resumed.train(50, 30).value();
  CHECK(got == expected);  // exact equality: same floats in the same order
  CHECK(resumed.validate().value() == straight.validate().value());
  std::filesystem::remove_all(dir);
}

TEST_CASE("The example trial on 2 and 4 ranks learns as on 1 rank with the same global batch") {
  const nlohmann::json hparams{{"learning_rate", 0.05}, {"hidden_units", 16}};
  const nlohmann::json data{{"train_records", 640}, {"validation_records", 200}};
  auto train_and_validate = [&](const trial_api::TrialContext& ctx) -> Result<MetricMap> {
    trial_api::TrialRegistry registry;
    register_example_trials(registry);
    auto trial = registry.create("native:mlp_classifier", ctx);
    if (!trial) return fail(trial.error());
    auto runner = trial_api::TrialRunner::create(std::move(*trial), ctx);
    if (!runner) return fail(runner.error());
    if (auto t = runner->train(0, 60); !t) return fail(t.error());
    return runner->validate();
  };
  const auto single = train_and_validate({hparams, data, 5, 32}).value();
  for (int n : {2, 4}) {
    const auto group_id = collective::testing::unique_group_id();
    std::vector<MetricMap> results(static_cast<std::size_t>(n));
    auto reports = collective::testing::run_in_threads(n, [&](int rank) -> Status {
      auto comm = collective::ShmCommunicator::join(group_id, rank, n);
      if (!comm) return fail(comm.error());
      auto group = std::make_shared<trial_api::DataParallel>(std::move(*comm), 1024);
      auto metrics = train_and_validate({hparams, data, 5, 32, group});
      if (!metrics) return fail(metrics.error());
      results[static_cast<std::size_t>(rank)] = *metrics;
      return {};
    });
    INFO(n << " ranks: " << collective::testing::summary(reports));
    REQUIRE(collective::testing::all_ok(reports));
    for (const auto& metrics : results) {
      CHECK(metrics.at("accuracy") == Approx(single.at("accuracy")).margin(1e-6));
      CHECK(metrics.at("validation_loss") == Approx(single.at("validation_loss")).epsilon(1e-4));
    }
  }
}

TEST_CASE("The example's data section refuses sizes it cannot hold, naming the field and its range") {
  using volador::examples::synthetic_spec_from;
  CHECK(synthetic_spec_from(nlohmann::json{{"train_records", 2000}, {"features", 8}}).train_records == 2000);
  CHECK_THROWS_WITH(synthetic_spec_from(nlohmann::json{{"train_records", 18446744073709551615ull}}),
                    "data.train_records: 18446744073709551615 is not an integer from 1 to 1000000");
  CHECK_THROWS_WITH(synthetic_spec_from(nlohmann::json{{"validation_records", -1}}),
                    Catch::Contains("data.validation_records: -1"));
  CHECK_THROWS_WITH(synthetic_spec_from(nlohmann::json{{"features", 4294967296ull}}),
                    Catch::Contains("data.features"));
  CHECK_THROWS_WITH(synthetic_spec_from(nlohmann::json{{"classes", "ten"}}), Catch::Contains("data.classes: \"ten\""));

  // The trial then fails at its start with that message.
  trial_api::TrialRegistry registry;
  register_example_trials(registry);
  trial_api::TrialContext ctx(nlohmann::json{{"learning_rate", 0.05}, {"hidden_units", 8}},
                              nlohmann::json{{"train_records", 18446744073709551615ull}}, 1, 32);
  auto trial = registry.create("native:mlp_classifier", ctx);
  REQUIRE_FALSE(trial.has_value());
  CHECK_THAT(trial.error().message, Catch::Contains("data.train_records"));
}
