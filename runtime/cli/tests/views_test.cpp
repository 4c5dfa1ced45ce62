#include <catch2/catch.hpp>

#include "runtime/cli/views.hpp"

using namespace volador;
using namespace volador::cli;

namespace {

wire::ExperimentDetail sample_detail() {
  wire::ExperimentDetail d;
  d.summary = {.id = 3,
               .name = "mnist",
               .state = RunState::active,
               .progress = 0.4,
               .searcher = "random",
               .metric = "accuracy",
               .num_trials = 2,
               .best = wire::BestTrial{.metric = 0.87, .trial_id = 5},
               .created_at_ms = 1,
               .owner = "bob"};
  d.trials.push_back({.id = 4, .experiment_id = 3, .request_id = 1, .state = RunState::active,
                      .hparams = R"({"lr":0.1,"global_batch_size":32})", .seed = 11, .batches_trained = 100});
  d.trials.push_back({.id = 5, .experiment_id = 3, .request_id = 2, .state = RunState::completed,
                      .hparams = R"({"lr":0.01,"global_batch_size":32})", .seed = 12, .batches_trained = 500,
                      .best_validation = 0.87});
  return d;
}

}  // namespace

TEST_CASE("The progress line counts trials by state and names the best") {
  CHECK(progress_line(sample_detail()) ==
        "experiment 3 ACTIVE 40% | trials: 1 active, 1 completed | best accuracy 0.87 (trial 5)");
}

TEST_CASE("A record's JSON carries state names, nulls for missing values, and parsed hyperparameters") {
  const nlohmann::json json = sample_detail();
  CHECK(json["id"] == 3);  // the summary's fields inline
  CHECK(json["state"] == "ACTIVE");
  CHECK(json["best"] == nlohmann::json({{"metric", 0.87}, {"trial_id", 5}}));
  CHECK(json["trials"][0]["best_validation"].is_null());
  CHECK(json["trials"][1]["best_validation"] == 0.87);
  CHECK(json["trials"][1]["hparams"]["lr"] == 0.01);
  CHECK(json["error"] == "");
  CHECK(json["owner"] == "bob");
  CHECK(json["archived"] == false);
  wire::TrialDetail trial{.summary = sample_detail().trials[0]};
  trial.metrics.push_back({.kind = MetricKind::validation, .batches = 100, .metrics = {{"accuracy", 0.5}}});
  CHECK(nlohmann::json(trial)["metrics"][0] ==
        nlohmann::json({{"kind", "VALIDATION"}, {"batches", 100}, {"reported_at_ms", 0}, {"metrics", {{"accuracy", 0.5}}}}));
  const wire::CreateExperimentRequest request{.config_yaml = "name: x\n", .archive = std::string("\0\xff", 2)};
  CHECK_FALSE(nlohmann::json(request).contains("archive"));  // bytes are not rendered
}

TEST_CASE("The experiment table aligns columns and leaves out global_batch_size") {
  auto detail = sample_detail();
  detail.summary.labels = {"mnist", "baseline"};
  auto text = render_table(detail);
  CHECK(text.find("Labels: mnist, baseline\n") != std::string::npos);
  CHECK(text.find("Best: accuracy = 0.87 (trial 5)") != std::string::npos);
  CHECK(text.find("TRIAL  STATE      BATCHES") != std::string::npos);
  CHECK(text.find("lr=0.01") != std::string::npos);
  CHECK(text.find("global_batch_size") == std::string::npos);
}

TEST_CASE("experiment describe shows the workspace and project and the description when the config has them") {
  auto detail = sample_detail();
  CHECK(render_table(detail).find("Workspace:") == std::string::npos);
  detail.summary.workspace = "research";
  detail.summary.project = "resnets";
  detail.description = "a baseline";
  const auto text = render_table(detail);
  CHECK(text.find("Workspace: research  Project: resnets\n") != std::string::npos);
  CHECK(text.find("Description: a baseline\n") != std::string::npos);
}

TEST_CASE("Log lines as JSON carry seq, time, stream and text, and as text mark other streams") {
  const std::vector<wire::LogEntry> lines{{1, 1000, "stdout", "hello"}, {2, 1001, "stderr", "oops"}};
  const nlohmann::json json = lines;
  REQUIRE(json.size() == 2);
  CHECK(json[1] == nlohmann::json({{"seq", 2}, {"time_ms", 1001}, {"stream", "stderr"}, {"text", "oops"}}));
  CHECK(render_line(lines[0]) == "hello");
  CHECK(render_line(lines[1]) == "[stderr] oops");
}

TEST_CASE("The trial list shows each trial's experiment, state, restarts, preemptions and best validation") {
  auto trials = sample_detail().trials;
  trials[1].preemptions = 2;
  const auto text = render_table(trials);
  CHECK(text.starts_with("TRIAL  EXPERIMENT  STATE      BATCHES  RESTARTS  PREEMPTIONS  BEST  HPARAMS\n"));
  CHECK(text.find("5      3           COMPLETED  500      0         2            0.87  lr=0.01") != std::string::npos);
  const nlohmann::json json = trials;
  REQUIRE(json.size() == 2);
  CHECK(json[0]["experiment_id"] == 3);
  CHECK(json[0]["best_validation"].is_null());
}

TEST_CASE("Agents list their pool, labels, slots, free disk, container runtime and trials, and slots are numbered per agent") {
  const wire::SlotSpec cpu{SlotType::cpu, "", "", 0};
  const wire::AgentList list{{{"a", "host-a", {cpu, cpu, cpu, cpu}, {7, 7, 9, 0}, "gpus", {{"disk", "ssd"}, {"rack", "b2"}},
                               (77ull << 30) + (1ull << 29), ""},
                              {"b", "host-b", {cpu}, {0}, "default", {}, 512ull << 20, "the work folder /w has 512 MiB free",
                               "podman"}}};
  const auto table = render_table(list);
  CHECK(table.starts_with("AGENT  HOST    POOL     SLOTS  USED  TYPE     DISK FREE       IMAGES  LABELS            TRIALS\n"));
  CHECK(table.find("a      host-a  gpus     4      3     4 x cpu  77.5 GiB        -       disk=ssd,rack=b2  7 (2 slots), 9 (1 slot)\n") !=
        std::string::npos);
  CHECK(table.find("b      host-b  default  1      0     1 x cpu  512 MiB (full)  podman  -                 -\n") !=
        std::string::npos);
  const auto json = agents_json(list);
  CHECK(json[0] == nlohmann::json({{"id", "a"}, {"hostname", "host-a"}, {"pool", "gpus"},
                                   {"labels", {{"disk", "ssd"}, {"rack", "b2"}}}, {"slots", 4}, {"used_slots", 3},
                                   {"slot_types", {{"cpu", 4}}},
                                   {"trials", {{{"trial_id", 7}, {"slots", 2}}, {{"trial_id", 9}, {"slots", 1}}}},
                                   {"work_disk_free_bytes", (77ull << 30) + (1ull << 29)},
                                   {"work_disk_refusal", nullptr}, {"container_runtime", nullptr}}));
  CHECK(json[1]["trials"].empty());
  CHECK(json[1]["work_disk_refusal"] == "the work folder /w has 512 MiB free");
  CHECK(json[1]["container_runtime"] == "podman");

  const auto slots = slots_json(list);
  REQUIRE(slots.size() == 5);
  CHECK(slots[1] == nlohmann::json({{"agent_id", "a"}, {"pool", "gpus"}, {"slot", 1}, {"type", "cpu"}, {"model", ""},
                                    {"memory_bytes", 0}, {"device", ""}, {"trial_id", 7}}));
  CHECK(slots[2]["trial_id"] == 9);
  CHECK(slots[3]["trial_id"].is_null());
  CHECK(slots[4]["agent_id"] == "b");
  CHECK(render_slots(list) ==
        "AGENT  POOL     SLOT  TYPE  DEVICE  USED BY\n"
        "a      gpus     0     cpu   -       trial 7\n"
        "a      gpus     1     cpu   -       trial 7\n"
        "a      gpus     2     cpu   -       trial 9\n"
        "a      gpus     3     cpu   -       free\n"
        "b      default  0     cpu   -       free\n");
}

TEST_CASE("GPU slots show their model and memory and device") {
  const wire::SlotSpec gpu0{SlotType::gpu, "GPU-aa", "Fake GPU", 80ULL << 30}, gpu1{SlotType::gpu, "GPU-bb", "Fake GPU", 80ULL << 30};
  const wire::AgentList list{{{"g", "host-g", {gpu0, gpu1}, {0, 4}, "default", {}}}};
  CHECK(render_table(list).find("2 x gpu Fake GPU (80 GiB)") != std::string::npos);
  CHECK(agents_json(list)[0]["slot_types"] == nlohmann::json({{"gpu Fake GPU (80 GiB)", 2}}));
  CHECK(render_slots(list) ==
        "AGENT  POOL     SLOT  TYPE                   DEVICE  USED BY\n"
        "g      default  0     gpu Fake GPU (80 GiB)  GPU-aa  free\n"
        "g      default  1     gpu Fake GPU (80 GiB)  GPU-bb  trial 4\n");
  CHECK(slots_json(list)[1]["device"] == "GPU-bb");
  CHECK(slots_json(list)[1]["model"] == "Fake GPU");
}

TEST_CASE("The pool list shows each pool's capacity, use, queue and experiments beside their fair share") {
  wire::PoolList list;
  list.pools.push_back({.name = "gpus", .description = "A100 hosts", .scheduler = "priority", .preemption = true,
                        .min_run_time_ms = 60000, .agents = 2, .slots = 8, .used_slots = 6, .running_trials = 3,
                        .pending_trials = 4, .pending_slots = 8, .preempting_trials = 1,
                        .experiments = {{.experiment_id = 3, .priority = 10, .weight = 2, .allocated_slots = 6,
                                         .running_trials = 3, .pending_trials = 4, .ideal_slots = 5.5}}});
  list.pools.push_back({.name = "spare"});
  const auto table = render_table(list);
  CHECK(table.starts_with("POOL   AGENTS  SLOTS  USED  RUNNING  QUEUED       PREEMPTING  EXPERIMENTS"));
  CHECK(table.find("gpus   2       8      6     3        4 (8 slots)  1           3 (p10 w2: 6 of 5.5)") != std::string::npos);
  CHECK(table.find("A100 hosts\n") != std::string::npos);
  CHECK(table.find("spare  0       0      0     0        0 (0 slots)  0           -") != std::string::npos);
  const nlohmann::json json = list.pools;
  CHECK(json[0]["experiments"][0]["ideal_slots"] == 5.5);
  CHECK(json[1]["name"] == "spare");
}

TEST_CASE("The experiment list shows owners and marks archived experiments and users show their role") {
  wire::ExperimentList list{.experiments = {sample_detail().summary, sample_detail().summary}};
  list.experiments[1].id = 4;
  list.experiments[1].owner = "admin";
  list.experiments[1].state = RunState::completed;
  list.experiments[1].archived = true;
  const auto text = render_table(list);
  CHECK(text.starts_with("ID  NAME   OWNER  STATE                 PROGRESS  SEARCHER  TRIALS  BEST  LABELS\n"));
  CHECK(text.find("4   mnist  admin  COMPLETED (archived)  40%") != std::string::npos);
  CHECK(render_table(sample_detail()).find("Owner: bob\n") != std::string::npos);

  const wire::UserList users{.users = {{.name = "admin", .admin = true}, {.name = "bob", .disabled = true}}};
  CHECK(render_table(users) == "NAME   ROLE   STATE\nadmin  admin  active\nbob    user   disabled\n");
}

TEST_CASE("The experiment list groups experiments by workspace and project and shows their labels") {
  wire::ExperimentList list{.experiments = {sample_detail().summary, sample_detail().summary, sample_detail().summary}};
  list.experiments[0].labels = {"mnist", "baseline"};
  list.experiments[1].id = 7;
  list.experiments[1].workspace = "vision";
  list.experiments[1].project = "digits";
  list.experiments[2].id = 9;
  list.experiments[2].workspace = "vision";
  const auto text = render_table(list);
  const auto none = text.find("Workspace: -  Project: -\n");
  const auto no_project = text.find("Workspace: vision  Project: -\n");
  const auto digits = text.find("Workspace: vision  Project: digits\n");
  REQUIRE(none == 0);
  REQUIRE(no_project != std::string::npos);
  REQUIRE(digits != std::string::npos);
  CHECK(no_project < digits);
  CHECK(text.find("3   mnist") < no_project);
  CHECK(text.find("mnist,baseline\n") < no_project);
  CHECK(text.find("9   mnist") > no_project);
  CHECK(text.find("9   mnist") < digits);
  CHECK(text.find("7   mnist") > digits);
}
