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

TEST_CASE("Log lines as JSON carry seq, time, stream and text, and as text mark other streams") {
  const std::vector<wire::LogEntry> lines{{1, 1000, "stdout", "hello"}, {2, 1001, "stderr", "oops"}};
  const auto json = to_json(lines);
  REQUIRE(json.size() == 2);
  CHECK(json[1] == nlohmann::json({{"seq", 2}, {"time_ms", 1001}, {"stream", "stderr"}, {"text", "oops"}}));
  CHECK(render_line(lines[0]) == "hello");
  CHECK(render_line(lines[1]) == "[stderr] oops");
}

TEST_CASE("The trial list shows each trial's experiment, state and best validation") {
  const auto trials = sample_detail().trials;
  const auto text = render_table(trials);
  CHECK(text.starts_with("TRIAL  EXPERIMENT  STATE      BATCHES  RESTARTS  BEST  HPARAMS\n"));
  CHECK(text.find("5      3           COMPLETED  500      0         0.87  lr=0.01") != std::string::npos);
  const auto json = to_json(trials);
  REQUIRE(json.size() == 2);
  CHECK(json[0]["experiment_id"] == 3);
  CHECK(json[0]["best_validation"].is_null());
}

TEST_CASE("Agents list their slots and trials, and slots are numbered per agent") {
  const wire::SlotSpec cpu{"cpu", "", "", 0};
  const wire::AgentList list{{{"a", "host-a", {cpu, cpu, cpu, cpu}, {7, 7, 9, 0}}, {"b", "host-b", {cpu}, {0}}}};
  const auto table = render_table(list);
  CHECK(table.starts_with("AGENT  HOST    SLOTS  USED  TYPE     TRIALS\n"));
  CHECK(table.find("a      host-a  4      3     4 x cpu  7 (2 slots), 9 (1 slot)\n") != std::string::npos);
  CHECK(table.find("b      host-b  1      0     1 x cpu  -\n") != std::string::npos);
  const auto json = to_json(list);
  CHECK(json[0] == nlohmann::json({{"id", "a"}, {"hostname", "host-a"}, {"slots", 4}, {"used_slots", 3},
                                   {"slot_types", {{"cpu", 4}}},
                                   {"trials", {{{"trial_id", 7}, {"slots", 2}}, {{"trial_id", 9}, {"slots", 1}}}}}));
  CHECK(json[1]["trials"].empty());

  const auto slots = slots_json(list);
  REQUIRE(slots.size() == 5);
  CHECK(slots[1] == nlohmann::json({{"agent_id", "a"}, {"slot", 1}, {"type", "cpu"}, {"model", ""}, {"memory_bytes", 0},
                                    {"device", ""}, {"trial_id", 7}}));
  CHECK(slots[2]["trial_id"] == 9);
  CHECK(slots[3]["trial_id"].is_null());
  CHECK(slots[4]["agent_id"] == "b");
  CHECK(render_slots(list) ==
        "AGENT  SLOT  TYPE  DEVICE  USED BY\n"
        "a      0     cpu   -       trial 7\n"
        "a      1     cpu   -       trial 7\n"
        "a      2     cpu   -       trial 9\n"
        "a      3     cpu   -       free\n"
        "b      0     cpu   -       free\n");
}

TEST_CASE("GPU slots show their model and memory and device") {
  const wire::SlotSpec gpu0{"gpu", "GPU-aa", "Fake GPU", 80ULL << 30}, gpu1{"gpu", "GPU-bb", "Fake GPU", 80ULL << 30};
  const wire::AgentList list{{{"g", "host-g", {gpu0, gpu1}, {0, 4}}}};
  CHECK(render_table(list).find("2 x gpu Fake GPU (80 GiB)") != std::string::npos);
  CHECK(to_json(list)[0]["slot_types"] == nlohmann::json({{"gpu Fake GPU (80 GiB)", 2}}));
  CHECK(render_slots(list) ==
        "AGENT  SLOT  TYPE                   DEVICE  USED BY\n"
        "g      0     gpu Fake GPU (80 GiB)  GPU-aa  free\n"
        "g      1     gpu Fake GPU (80 GiB)  GPU-bb  trial 4\n");
  CHECK(slots_json(list)[1]["device"] == "GPU-bb");
  CHECK(slots_json(list)[1]["model"] == "Fake GPU");
}
