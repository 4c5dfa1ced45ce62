// Journals already on disk must keep decoding. Each value below is a record
// as the journal of 2026-11 stored it (the hand-written codec, before
// schemas/journal.capnp generated the records), checked in as hex next to the
// record it held, as JSON. A change that renumbers or retypes a field of
// journal.capnp fails here; a field added since decodes to its default.
#include <catch2/catch.hpp>

#include <capnp/message.h>
#include <capnp/serialize.h>

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>
#include <rocksdb/db.h>

#include "schemas/journal.capnp.h"
#include "storage/journal/journal.hpp"
#include "storage/journal/journal_codec.hpp"
#include "storage/journal/journal_keys.hpp"
#include "storage/journal/tests/journal_test_support.hpp"

using namespace volador;
using namespace volador::storage;
using volador::storage::testing::TempDir;

namespace {

// The bytes that `hex` spells.
std::string bytes(std::string_view hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    out += static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16));
  }
  return out;
}

// Decodes the value that `hex` spells, stored under `key`, and checks each
// field that `stored` names (every field, with values unlike their defaults
// and neighbours, so a field read from another ordinal cannot go unnoticed).
template <class Record>
void check_decodes(const std::string& key, std::string_view hex, const char* stored) {
  auto decoded = codec::decode<Record>(key, bytes(hex));
  REQUIRE(decoded);
  const nlohmann::json json = *decoded;
  const auto expected = nlohmann::json::parse(stored);
  for (const auto& [field, value] : expected.items()) {
    INFO(field);
    CHECK(json.at(field) == value);
  }
}

// A trial's stored value with its state number and hparams text as given.
std::string trial_value(std::uint16_t state, const char* hparams) {
  capnp::MallocMessageBuilder message;
  auto trial = message.initRoot<journal_schema::TrialRecord>();
  trial.setId(31);
  trial.setState(static_cast<states_schema::RunState>(state));
  trial.setHparams(hparams);
  auto words = capnp::messageToFlatArray(message);
  return {words.asChars().begin(), words.asChars().size()};
}

}  // namespace

TEST_CASE("an experiment stored by the journal of 2026-11 decodes to the same experiment", "[journal][compatibility]") {
  check_decodes<ExperimentRecord>(keys::experiment(7),
    "000000001200000000000000050004000700000000000000010000002a000000"
    "000000000000d03f0068e5cf8b010000e86be5cf8b0100000d00000032000000"
    "0d0000006a000000110000008a00000019000000520000006d6e697374000000"
    "6e616d653a206d6e6973740a0000000064697374726962757465642e79616d6c"
    "00000000000000006469736b2066756c6c00000000000000",
    R"({"id": 7, "name": "mnist", "config_yaml": "name: mnist\n", "config_file_name": "distributed.yaml",
        "state": "PAUSED", "experiment_seed": 42, "progress": 0.25, "error_message": "disk full",
        "created_at_ms": 1700000000000, "ended_at_ms": 1700000001000, "killed": false})");
}

TEST_CASE("a trial stored by the journal of 2026-11 decodes to the same trial", "[journal][compatibility]") {
  check_decodes<TrialRecord>(keys::trial(31),
    "000000001800000000000000080004001f000000000000000700000000000000"
    "03000000000000006300000004000000b0040000000000000200000004000000"
    "d06fe5cf8b010000b873e5cf8b0100000d000000ba0000001500000072000000"
    "190000004a0000001d000000160000007b226c72223a302e30312c2277696474"
    "68223a36347d000072616e6b2031206578697465640000003062616463306465"
    "0000000000000000050000003200000005000000320000006770752d61000000"
    "6770752d62000000",
    R"({"id": 31, "experiment_id": 7, "request_id": 3, "hparams": {"lr": 0.01, "width": 64}, "seed": 99,
        "state": "ERROR", "batches_trained": 1200, "restarts": 2, "run_id": 4, "error_message": "rank 1 exited",
        "created_at_ms": 1700000002000, "ended_at_ms": 1700000003000, "run_token": "0badc0de",
        "run_agents": ["gpu-a", "gpu-b"]})");
}

TEST_CASE("a metric report stored by the journal of 2026-11 decodes to the same report", "[journal][compatibility]") {
  check_decodes<MetricRecord>(keys::metric(31, MetricKind::validation, 1000, 1),
    "000000000e00000000000000040001001f000000000000000100000000000000"
    "e803000000000000a077e5cf8b01000001000000270000000800000001000100"
    "000000000000ec3f090000004a000000000000000000d43f090000002a000000"
    "616363757261637900000000000000006c6f737300000000",
    R"({"trial_id": 31, "kind": "VALIDATION", "batches": 1000, "metrics": {"accuracy": 0.875, "loss": 0.3125},
        "reported_at_ms": 1700000004000})");
}

TEST_CASE("a log line stored by the journal of 2026-11 decodes to the same line", "[journal][compatibility]") {
  check_decodes<LogLine>(keys::log(31, 12),
    "000000000900000000000000030002001f000000000000000c00000000000000"
    "887be5cf8b010000050000003a000000050000006a0000007374646572720000"
    "65706f6368203320646f6e6500000000",
    R"({"trial_id": 31, "seq": 12, "time_ms": 1700000005000, "stream": "stderr", "text": "epoch 3 done"})");
}

TEST_CASE("a trial's log stored one line per record, as journals before chunks of lines stored it, reads on and "
          "grows in chunks", "[journal][compatibility]") {
  TempDir tmp;
  {
    auto journal = testing::open_journal(tmp.journal());
    REQUIRE(journal->commit(JournalBatch().put_experiment(testing::make_experiment(7)).put_trial(testing::make_trial(31, 7))));
  }
  std::vector<std::string> texts;  // of lines 1, 2, ...
  {
    rocksdb::DB* raw = nullptr;
    REQUIRE(rocksdb::DB::Open(rocksdb::Options(), tmp.journal().string(), &raw).ok());
    std::unique_ptr<rocksdb::DB> db(raw);
    for (std::uint64_t seq = 1; seq <= 11; ++seq) {
      texts.push_back("old line " + std::to_string(seq));
      auto value = codec::encode(LogLine{31, seq, 1700000000000, "stdout", texts.back()});
      REQUIRE(db->Put(rocksdb::WriteOptions(), keys::log(31, seq), std::string(codec::bytes_of(*value))).ok());
    }
    texts.push_back("epoch 3 done");  // line 12 as the journal of 2026-11 stored it
    const std::string line_12 = bytes(
        "000000000900000000000000030002001f000000000000000c00000000000000"
        "887be5cf8b010000050000003a000000050000006a0000007374646572720000"
        "65706f6368203320646f6e6500000000");
    REQUIRE(db->Put(rocksdb::WriteOptions(), keys::log(31, 12), line_12).ok());
  }
  auto journal = testing::open_journal(tmp.journal());
  std::vector<LogLine> appended;
  for (std::uint64_t i = 13; i <= 312; ++i) {
    texts.push_back("new line " + std::to_string(i));
    appended.push_back({31, 0, 1700000009000, "stdout", texts.back()});
  }
  REQUIRE(*journal->append_logs(31, std::move(appended)) == 312);  // numbered on from the old lines
  testing::check_every_log_page(*journal, 31, texts);
  CHECK(*journal->last_log_seq(31) == 312);
  CHECK(journal->logs(31, 11, 1)->at(0).stream == "stderr");

  REQUIRE(journal->delete_experiment(7));
  CHECK(journal->logs(31, 0, 1000)->empty());
}

TEST_CASE("a checkpoint stored by the journal of 2026-11 decodes to the same checkpoint", "[journal][compatibility]") {
  check_decodes<CheckpointRecord>(keys::checkpoint("6f1c2d3e-0000-4000-8000-0123456789ab"),
    "0000000012000000000000000600020007000000000000001f00000000000000"
    "e80300000000000004000000010001000010000000000000707fe5cf8b010000"
    "050000002a010000150000001700000036663163326433652d303030302d3430"
    "30302d383030302d303132333435363738396162000000000400000001000100"
    "000000000000d43f010000002a0000006c6f737300000000",
    R"({"uuid": "6f1c2d3e-0000-4000-8000-0123456789ab", "experiment_id": 7, "trial_id": 31, "batches": 1000,
        "run_id": 4, "validation_metrics": {"loss": 0.3125}, "state": "DELETED", "total_bytes": 4096,
        "created_at_ms": 1700000006000, "scheduled": false})");
}

TEST_CASE("a searcher state and a counter stored by the journal of 2026-11 decode to the same values",
          "[journal][compatibility]") {
  check_decodes<SearcherStateRecord>(keys::searcher_state(7),
    "0000000006000000000000000000010001000000d20000007b226e657874223a"
    "332c22747269616c73223a5b312c325d7d00000000000000",
    R"({"state": {"next": 3, "trials": [1, 2]}})");
  check_decodes<CounterRecord>(keys::counter("trial"),
    "000000000200000000000000010000001f00000000000000",
    R"({"value": 31})");
}

TEST_CASE("an archive stored by the journal of 2026-11 decodes to the same bytes", "[journal][compatibility]") {
  auto archive = codec::decode<ArchiveRecord>(keys::archive(7),
      bytes("00000000030000000000000000000100010000003a0000001f8b080074617200"));
  REQUIRE(archive);
  CHECK(archive->bytes == std::string("\x1f\x8b\x08\x00tar", 7));
}

TEST_CASE("a stored enum number that the enum does not name is corruption naming the record's field",
          "[journal][compatibility]") {
  CHECK(codec::decode<TrialRecord>(keys::trial(31), trial_value(4, "{}")));
  auto decoded = codec::decode<TrialRecord>(keys::trial(31), trial_value(5, "{}"));
  REQUIRE_FALSE(decoded);
  CHECK(decoded.error().code == ErrorCode::corruption);
  CHECK_THAT(decoded.error().message,
             Catch::Contains("t/31") && Catch::Contains("TrialRecord.state: unknown enumerant 5"));
}

TEST_CASE("stored hparams that are not JSON are corruption naming the record's field", "[journal][compatibility]") {
  auto decoded = codec::decode<TrialRecord>(keys::trial(31), trial_value(0, "{\"lr\": "));
  REQUIRE_FALSE(decoded);
  CHECK(decoded.error().code == ErrorCode::corruption);
  CHECK_THAT(decoded.error().message,
             Catch::Contains("t/31") && Catch::Contains("TrialRecord.hparams: not valid JSON"));
}
