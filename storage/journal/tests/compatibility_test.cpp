// Journals already on disk must keep decoding: each value below is a record as
// the journal codec of 2026-11 encoded it (hand-written conversion, before
// schemas/journal.capnp generated the records), checked in as hex. A change
// that renumbers or retypes a field of journal.capnp fails here.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <string_view>

#include "storage/journal/journal.hpp"
#include "storage/journal/journal_codec.hpp"
#include "storage/journal/journal_keys.hpp"
#include "storage/journal/tests/journal_test_support.hpp"

using namespace volador;
using namespace volador::storage;
using volador::storage::testing::check_same;

namespace {

// Every field differs from its default and from its neighbours of the same
// type, so a field read from another ordinal cannot go unnoticed.
ExperimentRecord stored_experiment() {
  return {.id = 7,
          .name = "mnist",
          .config_yaml = "name: mnist\n",
          .config_file_name = "distributed.yaml",
          .state = RunState::paused,
          .experiment_seed = 42,
          .progress = 0.25,
          .error_message = "disk full",
          .created_at_ms = 1'700'000'000'000,
          .ended_at_ms = 1'700'000'001'000};
}

TrialRecord stored_trial() {
  return {.id = 31,
          .experiment_id = 7,
          .request_id = 3,
          .hparams = {{"lr", 0.01}, {"width", 64}},
          .seed = 99,
          .state = RunState::error,
          .batches_trained = 1200,
          .restarts = 2,
          .run_id = 4,
          .error_message = "rank 1 exited",
          .created_at_ms = 1'700'000'002'000,
          .ended_at_ms = 1'700'000'003'000,
          .run_token = "0badc0de",
          .run_agents = {"gpu-a", "gpu-b"}};
}

MetricRecord stored_metrics() {
  return {.trial_id = 31,
          .kind = MetricKind::validation,
          .batches = 1000,
          .metrics = {{"accuracy", 0.875}, {"loss", 0.3125}},
          .reported_at_ms = 1'700'000'004'000};
}

LogLine stored_log() {
  return {.trial_id = 31, .seq = 12, .time_ms = 1'700'000'005'000, .stream = "stderr", .text = "epoch 3 done"};
}

CheckpointRecord stored_checkpoint() {
  return {.uuid = "6f1c2d3e-0000-4000-8000-0123456789ab",
          .experiment_id = 7,
          .trial_id = 31,
          .batches = 1000,
          .run_id = 4,
          .validation_metrics = {{"loss", 0.3125}},
          .state = CheckpointState::deleted,
          .total_bytes = 4096,
          .created_at_ms = 1'700'000'006'000,
          .scheduled = false};
}

const std::string kArchive = std::string("\x1f\x8b\x08\x00tar", 7);
const nlohmann::json kSearcherState = {{"next", 3}, {"trials", {1, 2}}};

// The values as the journal of 2026-11 stored them (hex of the bytes).
constexpr std::string_view kExperiment =
    "000000001200000000000000050004000700000000000000010000002a000000"
    "000000000000d03f0068e5cf8b010000e86be5cf8b0100000d00000032000000"
    "0d0000006a000000110000008a00000019000000520000006d6e697374000000"
    "6e616d653a206d6e6973740a0000000064697374726962757465642e79616d6c"
    "00000000000000006469736b2066756c6c00000000000000";
constexpr std::string_view kTrial =
    "000000001800000000000000080004001f000000000000000700000000000000"
    "03000000000000006300000004000000b0040000000000000200000004000000"
    "d06fe5cf8b010000b873e5cf8b0100000d000000ba0000001500000072000000"
    "190000004a0000001d000000160000007b226c72223a302e30312c2277696474"
    "68223a36347d000072616e6b2031206578697465640000003062616463306465"
    "0000000000000000050000003200000005000000320000006770752d61000000"
    "6770752d62000000";
constexpr std::string_view kMetrics =
    "000000000e00000000000000040001001f000000000000000100000000000000"
    "e803000000000000a077e5cf8b01000001000000270000000800000001000100"
    "000000000000ec3f090000004a000000000000000000d43f090000002a000000"
    "616363757261637900000000000000006c6f737300000000";
constexpr std::string_view kLog =
    "000000000900000000000000030002001f000000000000000c00000000000000"
    "887be5cf8b010000050000003a000000050000006a0000007374646572720000"
    "65706f6368203320646f6e6500000000";
constexpr std::string_view kArchiveValue =
    "00000000030000000000000000000100010000003a0000001f8b080074617200";
constexpr std::string_view kSearcherStateValue =
    "0000000006000000000000000000010001000000d20000007b226e657874223a"
    "332c22747269616c73223a5b312c325d7d00000000000000";
constexpr std::string_view kCounter =
    "000000000200000000000000010000001f00000000000000";
constexpr std::string_view kCheckpoint =
    "0000000012000000000000000600020007000000000000001f00000000000000"
    "e80300000000000004000000010001000010000000000000707fe5cf8b010000"
    "050000002a010000150000001700000036663163326433652d303030302d3430"
    "30302d383030302d303132333435363738396162000000000400000001000100"
    "000000000000d43f010000002a0000006c6f737300000000";

// The bytes that `hex` spells.
std::string bytes(std::string_view hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    out += static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16));
  }
  return out;
}

}  // namespace

TEST_CASE("an experiment record stored by the journal of 2026-11 decodes to the same experiment",
          "[journal][compatibility]") {
  auto decoded = codec::decode_experiment(keys::experiment(7), bytes(kExperiment));
  REQUIRE(decoded);
  check_same(*decoded, stored_experiment());
}

TEST_CASE("a trial record stored by the journal of 2026-11 decodes to the same trial",
          "[journal][compatibility]") {
  auto decoded = codec::decode_trial(keys::trial(31), bytes(kTrial));
  REQUIRE(decoded);
  check_same(*decoded, stored_trial());
}

TEST_CASE("a metric report stored by the journal of 2026-11 decodes to the same report",
          "[journal][compatibility]") {
  const auto expected = stored_metrics();
  auto decoded = codec::decode_metrics(keys::metric(31, expected.kind, expected.batches, 1), bytes(kMetrics));
  REQUIRE(decoded);
  CHECK(decoded->trial_id == expected.trial_id);
  CHECK(decoded->kind == expected.kind);
  CHECK(decoded->batches == expected.batches);
  CHECK(decoded->metrics == expected.metrics);
  CHECK(decoded->reported_at_ms == expected.reported_at_ms);
}

TEST_CASE("a log line stored by the journal of 2026-11 decodes to the same line",
          "[journal][compatibility]") {
  const auto expected = stored_log();
  auto decoded = codec::decode_log(keys::log(31, expected.seq), bytes(kLog));
  REQUIRE(decoded);
  CHECK(decoded->trial_id == expected.trial_id);
  CHECK(decoded->seq == expected.seq);
  CHECK(decoded->time_ms == expected.time_ms);
  CHECK(decoded->stream == expected.stream);
  CHECK(decoded->text == expected.text);
}

TEST_CASE("a checkpoint record stored by the journal of 2026-11 decodes to the same checkpoint",
          "[journal][compatibility]") {
  const auto expected = stored_checkpoint();
  auto decoded = codec::decode_checkpoint(keys::checkpoint(expected.uuid), bytes(kCheckpoint));
  REQUIRE(decoded);
  check_same(*decoded, expected);
}

TEST_CASE("an archive, searcher state and counter stored by the journal of 2026-11 decode to the same values",
          "[journal][compatibility]") {
  auto archive = codec::decode_archive(keys::archive(7), bytes(kArchiveValue));
  REQUIRE(archive);
  CHECK(*archive == kArchive);
  auto state = codec::decode_searcher_state(keys::searcher_state(7), bytes(kSearcherStateValue));
  REQUIRE(state);
  CHECK(*state == kSearcherState);
  auto counter = codec::decode_counter(keys::counter("trial"), bytes(kCounter));
  REQUIRE(counter);
  CHECK(*counter == 31);
}
