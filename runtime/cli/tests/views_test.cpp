#include <catch2/catch.hpp>

#include "runtime/cli/views.hpp"

using namespace volador;
using namespace volador::cli;

namespace {

wire::ExperimentDetail sample_detail() {
  wire::ExperimentDetail d;
  d.summary = {3, "mnist", "ACTIVE", 0.4, "random", "accuracy", false, 2, true, 0.87, 5, 1, 0, ""};
  d.trials.push_back({4, 3, 1, "ACTIVE", R"({"lr":0.1,"global_batch_size":32})", 11, 100, 0, false, 0, ""});
  d.trials.push_back({5, 3, 2, "COMPLETED", R"({"lr":0.01,"global_batch_size":32})", 12, 500, 0, true, 0.87, ""});
  return d;
}

}  // namespace

TEST_CASE("The progress line counts trials by state and names the best") {
  CHECK(progress_line(sample_detail()) ==
        "experiment 3 ACTIVE 40% | trials: 1 active, 1 completed | best accuracy 0.87 (trial 5)");
}

TEST_CASE("JSON views carry states, nulls for missing metrics, and parsed hyperparameters") {
  auto json = to_json(sample_detail());
  CHECK(json["state"] == "ACTIVE");
  CHECK(json["best_trial_id"] == 5);
  CHECK(json["trials"][0]["best_validation"].is_null());
  CHECK(json["trials"][1]["hparams"]["lr"] == 0.01);
  CHECK_FALSE(json.contains("error"));
}

TEST_CASE("The experiment table aligns columns and leaves out global_batch_size") {
  auto text = render_table(sample_detail());
  CHECK(text.find("Best: accuracy = 0.87 (trial 5)") != std::string::npos);
  CHECK(text.find("TRIAL  STATE      BATCHES") != std::string::npos);
  CHECK(text.find("lr=0.01") != std::string::npos);
  CHECK(text.find("global_batch_size") == std::string::npos);
}
