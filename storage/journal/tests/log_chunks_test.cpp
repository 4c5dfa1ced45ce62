// A trial's log lines stored one record per chunk (log_chunks.hpp): how
// appends are cut, and what a chunk's value must hold to be read.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "storage/journal/journal_codec.hpp"
#include "storage/journal/journal_keys.hpp"
#include "storage/journal/log_chunks.hpp"

using namespace volador;
using namespace volador::storage;

namespace {

// Lines seq first, first + 1, ... of trial 7, each of `text`.
std::vector<LogLine> lines_from(std::uint64_t first, std::size_t count, const std::string& text = "loss=0.25") {
  std::vector<LogLine> lines;
  for (std::size_t i = 0; i < count; ++i) lines.push_back({7, first + i, 1700000000000, "stdout", text});
  return lines;
}

std::vector<std::size_t> chunk_sizes(const std::vector<LogLine>& lines) {
  std::vector<std::size_t> sizes;
  for (const auto& chunk : log_chunks::split(lines)) sizes.push_back(chunk.size());
  return sizes;
}

// The values of `lines`, each encoded alone, back to back.
std::string back_to_back(const std::vector<LogLine>& lines) {
  std::string value;
  for (const auto& line : lines) value += codec::bytes_of(*codec::encode(line));
  return value;
}

}  // namespace

TEST_CASE("an append is cut into chunks of at most 256 lines and 32 KiB of text, a longer line alone",
          "[journal][log_chunks]") {
  CHECK(chunk_sizes({}).empty());
  CHECK(chunk_sizes(lines_from(1, 1)) == std::vector<std::size_t>{1});
  CHECK(chunk_sizes(lines_from(1, 256)) == std::vector<std::size_t>{256});
  CHECK(chunk_sizes(lines_from(1, 600)) == std::vector<std::size_t>{256, 256, 88});
  CHECK(chunk_sizes(lines_from(1, 4, std::string(16 << 10, 'x'))) == std::vector<std::size_t>{2, 2});
  CHECK(chunk_sizes(lines_from(1, 3, std::string(40 << 10, 'x'))) == std::vector<std::size_t>{1, 1, 1});
  auto mixed = lines_from(1, 3);
  mixed[1].text = std::string(64 << 10, 'x');
  CHECK(chunk_sizes(mixed) == std::vector<std::size_t>{1, 1, 1});
}

TEST_CASE("a chunk's value reads back as its lines in order", "[journal][log_chunks]") {
  const auto lines = lines_from(5, 600);
  const auto values = log_chunks::encode(lines);
  REQUIRE(values);
  REQUIRE(values->size() == 3);
  std::vector<LogLine> read;
  for (std::size_t i = 0; i < values->size(); ++i) {
    const std::uint64_t last = i == 0 ? 260 : i == 1 ? 516 : 604;
    auto chunk = log_chunks::decode(keys::log(7, last), values->at(i));
    REQUIRE(chunk);
    read.insert(read.end(), chunk->begin(), chunk->end());
  }
  CHECK(read == lines);
}

TEST_CASE("a chunk of lines longer than an encoding's first segment (several segments each) reads back",
          "[journal][log_chunks]") {
  auto lines = lines_from(1, 4);
  lines[1].text = std::string(3000, 'y');
  lines[2].text = std::string(20 << 10, 'z');
  const auto values = log_chunks::encode(lines);
  REQUIRE(values);
  REQUIRE(values->size() == 1);
  auto read = log_chunks::decode(keys::log(7, 4), values->front());
  REQUIRE(read);
  CHECK(*read == lines);
}

TEST_CASE("a line stored alone, as journals before chunks stored each line, is a chunk of one",
          "[journal][log_chunks][compatibility]") {
  const auto line = lines_from(12, 1);
  const auto values = log_chunks::encode(line);
  REQUIRE(values);
  CHECK(*values == std::vector<std::string>{back_to_back(line)});
  auto read = log_chunks::decode(keys::log(7, 12), back_to_back(line));
  REQUIRE(read);
  CHECK(*read == line);
}

TEST_CASE("a chunk that is not consecutive lines of its key's trial ending at its seq is corruption naming the key",
          "[journal][log_chunks]") {
  auto refusal = [](std::uint64_t key_seq, const std::vector<LogLine>& lines) {
    auto read = log_chunks::decode(keys::log(7, key_seq), back_to_back(lines));
    REQUIRE_FALSE(read);
    CHECK(read.error().code == ErrorCode::corruption);
    return read.error().message;
  };
  CHECK_THAT(refusal(9, lines_from(1, 3)), Catch::Contains("l/7/9") && Catch::Contains("holds line 3 of trial 7 last"));
  auto gap = lines_from(1, 3);
  gap[2].seq = 4;
  CHECK_THAT(refusal(4, gap), Catch::Contains("its line 1 is line 1 of trial 7, not line 2 of trial 7"));
  auto other_trial = lines_from(1, 3);
  other_trial[0].trial_id = 8;
  CHECK_THAT(refusal(3, other_trial), Catch::Contains("its line 1 is line 1 of trial 8, not line 1 of trial 7"));

  auto torn = log_chunks::decode(keys::log(7, 2), back_to_back(lines_from(1, 2)).substr(0, 120));
  REQUIRE_FALSE(torn);
  CHECK(torn.error().code == ErrorCode::corruption);
  CHECK_THAT(torn.error().message, Catch::Contains("l/7/2"));
}
