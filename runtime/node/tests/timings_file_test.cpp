#include <catch2/catch.hpp>

#include <fstream>
#include <random>

#include "runtime/node/timings_file.hpp"

using namespace volador;
using namespace std::chrono_literals;
using std::chrono::milliseconds;

namespace {

milliseconds& heartbeat_interval(master::Timings& t) { return t.links.heartbeat_interval; }
milliseconds& connection_timeout(master::Timings& t) { return t.links.connection_timeout; }
milliseconds& handshake_timeout(master::Timings& t) { return t.links.handshake_timeout; }
milliseconds& reattach_grace(master::Timings& t) { return t.reattach_grace; }
milliseconds& master_outage_patience(master::Timings& t) { return t.master_outage_patience; }
milliseconds& workload_timeout(master::Timings& t) { return t.workload_timeout; }
milliseconds& hello_timeout(master::Timings& t) { return t.hello_timeout; }
milliseconds& warm_worker_idle(master::Timings& t) { return t.warm_worker_idle; }
milliseconds& log_timeout(master::Timings& t) { return t.log_timeout; }

// A file holding `text` under the temporary folder, removed with it.
struct TempFile {
  std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("volador-timings-" + std::to_string(std::random_device{}()) + ".conf");
  explicit TempFile(const std::string& text) { std::ofstream(path) << text; }
  ~TempFile() { std::filesystem::remove(path); }
};

}  // namespace

TEST_CASE("A timings file without settings leaves every default") {
  for (const auto* text : {"", "\n\n", "# only a comment\n   \n", "  # indented comment"}) {
    auto timings = node::parse_timings(text, "t.conf");
    REQUIRE(timings.has_value());
    CHECK(node::format_timings(*timings) == node::format_timings(master::Timings{}));
  }
}

TEST_CASE("Each setting replaces its default, in every unit, around spaces and comments") {
  struct Row {
    const char* text;
    milliseconds& (*field)(master::Timings&);
    milliseconds expected;
  };
  const Row rows[] = {
      {"heartbeat_interval = 200ms", heartbeat_interval, 200ms},
      {"connection_timeout=3s", connection_timeout, 3s},
      {"handshake_timeout = 1s\n", handshake_timeout, 1s},
      {"  reattach_grace =  2s   # shorter for tests", reattach_grace, 2s},
      {"master_outage_patience = 3min", master_outage_patience, 3min},
      {"workload_timeout = 48h", workload_timeout, 48h},
      {"hello_timeout = 10 s\r\n", hello_timeout, 10s},
      {"warm_worker_idle = 500ms", warm_worker_idle, 500ms},
      {"log_timeout = 2s", log_timeout, 2s},
      {"# heartbeats\nheartbeat_interval = 1s\nconnection_timeout = 2s", connection_timeout, 2s},
  };
  for (const auto& row : rows) {
    INFO(row.text);
    auto timings = node::parse_timings(row.text, "t.conf");
    REQUIRE(timings.has_value());
    CHECK(row.field(*timings) == row.expected);
    CHECK(timings->launch_timeout == master::Timings{}.launch_timeout);  // untouched
  }
}

TEST_CASE("A bad timings file is refused with FILE:LINE and what is wrong") {
  struct Row {
    const char* text;
    const char* error;
  };
  const Row rows[] = {
      {"heartbeat_interval 200ms", "t.conf:1: expected KEY = DURATION, got 'heartbeat_interval 200ms'"},
      {"\n# c\nheartbeat = 1s", "t.conf:3: unknown key 'heartbeat' (known: heartbeat_interval, connection_timeout,"},
      {"= 1s", "t.conf:1: unknown key ''"},
      {"reattach_grace = 2s\nreattach_grace = 3s", "t.conf:2: reattach_grace: set twice (first on line 1)"},
      {"reattach_grace = 2", "t.conf:1: reattach_grace: '2' is not a duration: a whole number and a unit (ms, s, min, h)"},
      {"reattach_grace = 2sec", "t.conf:1: reattach_grace: '2sec' is not a duration"},
      {"reattach_grace = 1.5s", "t.conf:1: reattach_grace: '1.5s' is not a duration"},
      {"reattach_grace = -2s", "t.conf:1: reattach_grace: '-2s' is not a duration"},
      {"reattach_grace = s", "t.conf:1: reattach_grace: 's' is not a duration"},
      {"reattach_grace =", "t.conf:1: reattach_grace: '' is not a duration"},
      {"reattach_grace = 0ms", "t.conf:1: reattach_grace: must be more than 0"},
      {"workload_timeout = 8761h", "t.conf:1: workload_timeout: '8761h' is over a year"},
      {"workload_timeout = 99999999999999999999999ms", "t.conf:1: workload_timeout: '99999999999999999999999ms' is over a year"},
      {"heartbeat_interval = 6s",
       "t.conf:1: connection_timeout (10000ms) must be at least twice heartbeat_interval (6000ms), or live peers are dropped"},
      {"connection_timeout = 1s\nheartbeat_interval = 600ms", "t.conf:1: connection_timeout (1000ms) must be at least twice"},
  };
  for (const auto& row : rows) {
    INFO(row.text);
    auto timings = node::parse_timings(row.text, "t.conf");
    REQUIRE_FALSE(timings.has_value());
    CHECK(timings.error().code == ErrorCode::invalid_argument);
    CHECK_THAT(timings.error().message, Catch::StartsWith(row.error));
  }
}

TEST_CASE("Every fault of a timings file is reported at once, one line each") {
  auto timings = node::parse_timings("reattach_grace = x\nlaunch_timeout = 2m\nhello_timeout = 1s\nbogus = 1s\n", "t.conf");
  REQUIRE_FALSE(timings.has_value());
  CHECK(timings.error().message ==
        "t.conf:1: reattach_grace: 'x' is not a duration: a whole number and a unit (ms, s, min, h), e.g. 500ms\n"
        "t.conf:2: launch_timeout: '2m' is not a duration: a whole number and a unit (ms, s, min, h), e.g. 500ms\n"
        "t.conf:4: unknown key 'bogus' (known: " + node::known_timing_keys() + ")");
}

TEST_CASE("Written timings read back as they were") {
  master::Timings timings;
  timings.links = {.heartbeat_interval = 150ms, .connection_timeout = 2s, .handshake_timeout = 700ms};
  timings.connect_patience = 4s;
  timings.master_outage_patience = 5s;
  timings.reattach_grace = 1500ms;
  timings.launch_timeout = 9s;
  timings.workload_timeout = 3h;
  timings.register_timeout = 1s;
  timings.reconnect_patience = 20s;
  timings.hello_timeout = 30s;
  timings.warm_worker_idle = 2s;
  const TempFile file("");
  REQUIRE(node::write_timings_file(timings, file.path).has_value());
  auto read = node::read_timings_file(file.path);
  REQUIRE(read.has_value());
  CHECK(node::format_timings(*read) == node::format_timings(timings));
  CHECK(read->links.handshake_timeout == 700ms);
  CHECK(read->hello_timeout == 30s);
  CHECK(read->warm_worker_idle == 2s);
}

TEST_CASE("A timings file's errors name the file and a missing or huge file is refused") {
  const TempFile bad("reattach_grace = 2s\nreattach_grace = 1s\n");
  auto read = node::read_timings_file(bad.path);
  REQUIRE_FALSE(read.has_value());
  CHECK_THAT(read.error().message, Catch::StartsWith(bad.path.string() + ":2: reattach_grace: set twice"));

  auto missing = node::read_timings_file(bad.path.string() + ".missing");
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().code == ErrorCode::not_found);
  CHECK(missing.error().message == "cannot read the timings file " + bad.path.string() + ".missing");

  const TempFile huge(std::string(70 * 1024, '#'));
  auto refused = node::read_timings_file(huge.path);
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().message == huge.path.string() + ": a timings file is at most 64 KiB");
}
