#include <catch2/catch.hpp>

#include <string>

#include "runtime/trial_output/worker_output.hpp"

using namespace volador;
using namespace volador::trial_output;

namespace {

struct Fixture {
  std::int64_t now_ms = 5'000;
  Clock clock = [this] { return now_ms; };
};

std::vector<std::string> texts(const std::vector<wire::LogEntry>& lines) {
  std::vector<std::string> out;
  for (const auto& line : lines) out.push_back(line.stream + ": " + line.text);
  return out;
}

}  // namespace

TEST_CASE("A worker's lines come out in order with their stream and time") {
  Fixture f;
  WorkerOutput output({}, 1 << 20, f.clock);
  output.add("stdout", "one");
  f.now_ms += 7;
  output.add("stderr", "two");
  CHECK(output.buffered_bytes() == 8);
  auto lines = output.take(1 << 20);
  REQUIRE(lines.size() == 2);
  CHECK(texts(lines) == std::vector<std::string>{"stdout: one", "stderr: two"});
  CHECK(lines[0].time_ms == 5'000);
  CHECK(lines[1].time_ms == 5'007);
  CHECK(output.buffered_bytes() == 0);
  CHECK(output.take(1 << 20).empty());
}

TEST_CASE("take hands out at most the bytes asked for but always a line") {
  Fixture f;
  WorkerOutput output({}, 1 << 20, f.clock);
  for (const auto* text : {"aaaa", "bbbb", "cccc"}) output.add("stdout", text);
  CHECK(texts(output.take(10)) == std::vector<std::string>{"stdout: aaaa", "stdout: bbbb"});
  CHECK(texts(output.take(1)) == std::vector<std::string>{"stdout: cccc"});
}

TEST_CASE("A full buffer drops lines until it is emptied and then says how many it dropped") {
  Fixture f;
  WorkerOutput output({}, 10, f.clock);
  output.add("stdout", "aaaa");  // 5 bytes
  output.add("stdout", "bbbb");  // 10: full
  output.add("stdout", "cccc");  // dropped
  output.add("stderr", "dd");    // dropped
  CHECK(output.buffered_bytes() == 10);
  CHECK(output.take(100).size() == 2);
  output.add("stdout", "eeee");
  CHECK(texts(output.take(1000)) ==
        std::vector<std::string>{"system: volador: 2 lines (8 B) of output dropped: 2 (8 B) while the agent's buffer was "
                                 "full (the master away or slow)",
                                 "stdout: eeee"});
}

TEST_CASE("A flood keeps the buffer bounded and ends with one marker for what it dropped") {
  Fixture f;
  WorkerOutput output({.bytes_per_second = 1000, .burst_bytes = 2000, .max_bytes = 1 << 20}, 1 << 20, f.clock);
  const std::string line(99, 'x');
  for (int i = 0; i < 100'000; ++i) output.add("stdout", line);  // 10 MB at one instant
  output.finish();
  CHECK(output.buffered_bytes() < 2100 + 200);
  auto lines = output.take(1 << 20);
  REQUIRE(lines.size() == 21);
  CHECK(lines.back().stream == "system");
  CHECK(lines.back().text ==
        "volador: 99980 lines (9.5 MiB) of output dropped: 99980 (9.5 MiB) printed faster than 1000 B/s (bursts of "
        "2.0 KiB pass)");
}
