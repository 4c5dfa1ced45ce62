#include <catch2/catch.hpp>

#include "runtime/wire/codec.hpp"

using namespace volador;
using namespace volador::wire;

TEST_CASE("A launch spec survives encode and decode, archive bytes included") {
  LaunchSpec spec;
  spec.trial_id = 31;
  spec.run_id = 2;
  spec.entrypoint = "native:softmax";
  spec.hparams_json = R"({"lr":0.1})";
  spec.environment_variables = {"A=1", "B=two"};
  spec.archive = std::string("\0\x01\xff tar", 7);
  spec.master_port = 17000;
  spec.slot = 3;
  auto back = decode<LaunchSpec>(encode(spec));
  REQUIRE(back.has_value());
  CHECK(back->trial_id == 31);
  CHECK(back->run_id == 2);
  CHECK(back->entrypoint == "native:softmax");
  CHECK(back->environment_variables == spec.environment_variables);
  CHECK(back->archive == spec.archive);
  CHECK(back->master_port == 17000);
  CHECK(back->slot == 3);
}

TEST_CASE("Nested messages keep their lists and metric maps") {
  TrialDetail detail;
  detail.summary.id = 4;
  detail.summary.state = RunState::completed;
  detail.summary.best_validation = 0.9;
  detail.metrics.push_back({MetricKind::validation, 300, 1234, {{"accuracy", 0.9}, {"loss", 0.25}}});
  auto back = decode<TrialDetail>(encode(detail));
  REQUIRE(back.has_value());
  CHECK(*back == detail);
  CHECK(back->summary.state == RunState::completed);
  CHECK(back->summary.best_validation == 0.9);
  REQUIRE(back->metrics.size() == 1);
  CHECK(back->metrics[0].metrics.at("accuracy") == 0.9);
  CHECK(back->metrics[0].batches == 300);
}

TEST_CASE("A rank group keeps every rank's address in rank order") {
  RankGroup group{"trial-4-run-2", "s3cret", {{"host-a", "10.0.0.1", 4001}, {"host-b", "10.0.0.2", 4002}}, 5000, 1 << 20};
  auto back = decode<RankGroup>(encode(group));
  REQUIRE(back.has_value());
  CHECK(back->group_id == "trial-4-run-2");
  CHECK(back->secret == "s3cret");
  REQUIRE(back->ranks.size() == 2);
  CHECK(back->ranks[1].host_id == "host-b");
  CHECK(back->ranks[1].host == "10.0.0.2");
  CHECK(back->ranks[1].port == 4002);
  CHECK(back->timeout_ms == 5000);
  CHECK(back->shm_limit_bytes == 1 << 20);
  auto hello = decode<RankHello>(encode(RankHello{4, 2, 1, "t", {"host-b", "10.0.0.2", 4002}}));
  REQUIRE(hello.has_value());
  CHECK(hello->address.port == 4002);
}

TEST_CASE("Workload kinds round-trip") {
  for (auto kind : {WorkloadKind::train, WorkloadKind::validate, WorkloadKind::checkpoint, WorkloadKind::run}) {
    auto back = decode<WorkloadRequest>(encode(WorkloadRequest{kind, 7, 3, "/ckpt/x", "(\\w+):(\\d+)"}));
    REQUIRE(back.has_value());
    CHECK(back->kind == kind);
    CHECK(back->start_batch == 7);
    CHECK(back->path == "/ckpt/x");
    CHECK(back->metric_pattern == "(\\w+):(\\d+)");
  }
}

TEST_CASE("Metric reports keep their kind, value, metrics and optional step") {
  MetricReport report{3, 0, ReportKind::final_result, 0.93, {}, std::nullopt};
  auto back = decode<MetricReport>(encode(report));
  REQUIRE(back.has_value());
  CHECK(back->run_id == 3);
  CHECK(back->kind == ReportKind::final_result);
  CHECK(back->value == 0.93);
  CHECK_FALSE(back->step.has_value());
  auto metrics = decode<MetricReport>(encode(MetricReport{1, 1, ReportKind::metrics, 0, {{"loss", 0.25}}, 0}));
  REQUIRE(metrics.has_value());
  CHECK(metrics->rank == 1);
  CHECK(metrics->kind == ReportKind::metrics);
  CHECK(metrics->metrics.at("loss") == 0.25);
  CHECK(metrics->step == std::optional<std::uint64_t>(0));
}

TEST_CASE("Malformed bytes give a corruption error naming the message type") {
  Bytes garbage(24, '\x7f');
  auto r = decode<RankHello>(garbage);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == ErrorCode::corruption);
  CHECK(r.error().message.find("RankHello") != std::string::npos);

  auto odd = decode<RankHello>(Bytes(5, 0));
  REQUIRE_FALSE(odd.has_value());
  CHECK(odd.error().message.find("multiple of 8") != std::string::npos);
}

TEST_CASE("An agent's registration keeps its slots and the workers it kept running") {
  const SlotSpec gpu{SlotType::gpu, "GPU-1234", "H100", 80ULL << 30};
  AgentInfo info{"gpu-7", "host", {gpu, {SlotType::cpu, "", "", 0}}, {{12, 3, 0, 1}, {12, 3, 1, 0}}};
  auto back = decode<AgentInfo>(encode(info));
  REQUIRE(back.has_value());
  REQUIRE(back->slots.size() == 2);
  CHECK(back->slots[0] == gpu);
  CHECK(back->slots[1].type == SlotType::cpu);
  REQUIRE(back->workers.size() == 2);
  CHECK(back->workers[1].trial_id == 12);
  CHECK(back->workers[1].run_id == 3);
  CHECK(back->workers[1].rank == 1);
  CHECK(back->workers[0].slot == 1);
}

TEST_CASE("An agent's status lists each slot with the trial using it") {
  AgentList list{{{"a", "host-a", {{SlotType::gpu, "GPU-1", "T4", 16ULL << 30}, {SlotType::gpu, "GPU-2", "T4", 16ULL << 30}}, {0, 9}}}};
  auto back = decode<AgentList>(encode(list));
  REQUIRE(back.has_value());
  REQUIRE(back->agents.size() == 1);
  CHECK(back->agents[0].slots[1].device_uuid == "GPU-2");
  CHECK(back->agents[0].slot_trials == std::vector<std::uint64_t>{0, 9});
}

TEST_CASE("A rank's rejoin carries its finished workloads and results only when it has them") {
  RankRejoin fresh{5, 2, 1, "secret", std::nullopt};
  auto back = decode<RankRejoin>(encode(fresh));
  REQUIRE(back.has_value());
  CHECK(back->token == "secret");
  CHECK_FALSE(back->last.has_value());

  RankRejoin busy = fresh;
  busy.last = FinishedWorkload{{WorkloadKind::validate, 40, 0, "", ""}, {{{"accuracy", 0.5}}, 40, ""}};
  back = decode<RankRejoin>(encode(busy));
  REQUIRE(back.has_value());
  REQUIRE(back->last.has_value());
  CHECK(back->last->request.kind == WorkloadKind::validate);
  CHECK(back->last->request.start_batch == 40);
  CHECK(back->last->result.metrics.at("accuracy") == 0.5);
  CHECK(back->last->result.batches_trained == 40);
  CHECK(back->earlier.empty());

  RankRejoin ahead = busy;
  ahead.earlier = {FinishedWorkload{{WorkloadKind::train, 30, 10, "", ""}, {{{"loss", 0.25}}, 40, ""}}};
  back = decode<RankRejoin>(encode(ahead));
  REQUIRE(back.has_value());
  REQUIRE(back->earlier.size() == 1);
  CHECK((back->earlier[0].request.kind == WorkloadKind::train && back->earlier[0].request.batches == 10));
  CHECK(back->earlier[0].result.metrics.at("loss") == 0.25);
  CHECK(back->last->request.kind == WorkloadKind::validate);
}


TEST_CASE("Schema defaults hold in the records and across the wire") {
  CHECK(LaunchSpec{}.world_size == 1);
  CHECK(LaunchSpec{}.local_size == 1);
  CHECK(RankGroup{}.timeout_ms == 30'000);
  CHECK(MetricReport{}.kind == ReportKind::metrics);
  auto back = decode<LaunchSpec>(encode(LaunchSpec{}));
  REQUIRE(back.has_value());
  CHECK(*back == LaunchSpec{});
}

TEST_CASE("A packed trial summary unpacks to the same record, in fewer bytes than the framed encoding") {
  TrialSummary summary{.id = 7, .experiment_id = 2, .request_id = 7, .state = RunState::completed,
                       .hparams = R"({"global_batch_size":1,"x":0.25})", .seed = 11, .batches_trained = 100,
                       .restarts = 1, .best_validation = 0.5, .error = "", .created_at_ms = 1700000000000,
                       .ended_at_ms = 1700000000500, .latest_training = {{"loss", 0.75}},
                       .latest_validation = {{"accuracy", 0.5}, {"validation_loss", 0.5}}, .preemptions = 0,
                       .warm_start_trial = 0};
  const auto packed = pack(summary);
  CHECK(packed.size() < encode(summary).size());
  auto back = unpack<TrialSummary>(packed);
  REQUIRE(back.has_value());
  CHECK(*back == summary);
}

TEST_CASE("Unpacking cut or garbled packed bytes is an error naming the message type") {
  const auto packed = pack(TrialSummary{.id = 7, .hparams = R"({"x":1})"});
  for (const std::string& bad : {packed.substr(0, packed.size() / 2), std::string(4, '\xff')}) {
    auto back = unpack<TrialSummary>(bad);
    REQUIRE_FALSE(back.has_value());
    CHECK_THAT(back.error().message, Catch::Contains("TrialSummary"));
  }
}
