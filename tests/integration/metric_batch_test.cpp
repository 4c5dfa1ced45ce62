// End to end: a command's metric points reach the journal in acknowledged
// batches (actors/metric_outbox.hpp, TrialRun's CommandReported): a flood of
// 200,000 points is journaled exactly, and a rank worker whose link to the
// master drops mid-flood (SIGSTOP until the master dropped it) rejoins its
// running trial, loses no point and journals none twice. The flood's lines
// are its log, each once and in order. On a journal disk slow to sync
// (slow_disk.hpp) the flood is journaled exactly too, the command waits only
// for the outbox's window and the master answers queries meanwhile.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <limits>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "actors/metric_outbox.hpp"
#include "storage/journal/journal.hpp"
#include "tests/integration/cluster_fixture.hpp"
#include "tests/integration/slow_disk.hpp"

using namespace volador;
using namespace volador::testing;
namespace fs = std::filesystem;

namespace {

// Prints `loss=0`, `loss=1`, ... (each a metric report numbered 1, 2, ...):
// POINTS of them, or with 0 until the file MARKS/stop appears; then the
// searcher metric. Writes its worker's pid to MARKS/worker.pid first, the
// points printed so far to MARKS/progress before each thousand, and at the
// end the seconds the flood took and the longest any thousand took (the
// longest it was held up printing) to MARKS/timing, then the number of points
// it printed to MARKS/printed.
const char* kFloodScript = R"(import os, sys, time
marks, points = sys.argv[1], int(sys.argv[2])
with open(os.path.join(marks, "worker.pid"), "w") as f:
    f.write(str(os.getppid()))
printed, started, longest = 0, time.monotonic(), 0.0
while printed < points if points else not os.path.exists(os.path.join(marks, "stop")):
    thousand_started = time.monotonic()
    with open(os.path.join(marks, "progress.new"), "w") as f:
        f.write(str(printed))
    os.replace(os.path.join(marks, "progress.new"), os.path.join(marks, "progress"))
    for _ in range(min(1000, points - printed) if points else 1000):
        print(f"loss={printed}")
        printed += 1
    longest = max(longest, time.monotonic() - thousand_started)
    if not points:
        time.sleep(0.01)
print("accuracy=0.5", flush=True)
with open(os.path.join(marks, "timing"), "w") as f:
    f.write(f"{time.monotonic() - started} {longest}")
with open(os.path.join(marks, "printed"), "w") as f:
    f.write(str(printed))
)";

struct FloodRun {
  TempDir dir;
  fs::path project = dir.path() / "project";
  fs::path marks = dir.path() / "marks";
  fs::path data;  // the cluster's data folder
  Cluster cluster;

  // A master and a 1-slot agent (dropping a peer silent for 2 s when
  // `short_links`) with their data in `data` (a folder of their own when
  // empty); the flood project printing `points` (0: until stopped).
  FloodRun(std::uint64_t points, bool short_links, const fs::path& data_folder = {})
      : data(data_folder.empty() ? dir.path() / "data" : data_folder), cluster(data) {
    fs::create_directories(marks);
    write_file(project / "flood.py", kFloodScript);
    write_file(project / "distributed.yaml",
               "name: flood\n"
               "entrypoint: /usr/bin/python3 flood.py " + marks.string() + " " + std::to_string(points) + "\n"
               "hyperparameters: {global_batch_size: 1}\n"
               "searcher: {name: single, metric: accuracy, smaller_is_better: false, max_length: {batches: 100000000}}\n"
               "max_restarts: 0\n");
    if (short_links) cluster.add_node_arguments(short_link_timings(dir.path()));
    cluster.start_master();
    cluster.start_agent(1);
  }
  std::uint64_t printed() const { return number_in(marks / "printed"); }
  // At least this many points were printed (0 before the first thousand).
  std::uint64_t progress() const { return number_in(marks / "progress"); }
  static std::uint64_t number_in(const fs::path& file) {
    std::uint64_t n = 0;
    std::ifstream(file) >> n;
    return n;
  }
  // Once it printed all: the seconds the flood took and the longest any thousand points took.
  std::pair<double, double> timing() const {
    std::pair<double, double> seconds{0, 0};
    std::ifstream(marks / "timing") >> seconds.first >> seconds.second;
    return seconds;
  }
  // The loss of the latest point journaled of experiment `id`'s trial (its summary's), if any.
  std::optional<double> latest_loss_journaled(const std::string& id) const {
    const auto latest = describe_experiment(cluster, id)["trials"][0]["latest_validation"];  // a command's points
    if (!latest.contains("loss")) return std::nullopt;
    return latest["loss"].get<double>();
  }
  // The trial of experiment `id` ended COMPLETED without a restart; its id.
  std::uint64_t completed_trial(const std::string& id) const {
    REQUIRE(eventually([&] { return describe_experiment(cluster, id)["state"] != "ACTIVE"; }, 300));
    const auto trial = describe_experiment(cluster, id)["trials"][0];
    INFO(cluster.cli({"trial", "logs", trial["id"].dump(), "--tail", "50"}).out);
    CHECK(trial["state"] == "COMPLETED");
    CHECK(trial["restarts"] == 0);
    return trial["id"].get<std::uint64_t>();
  }
  // The journal, once the master stopped.
  std::unique_ptr<storage::Journal> stopped_journal() {
    REQUIRE(cluster.stop_master());
    auto journal = storage::Journal::open(data / "journal");
    REQUIRE(journal);
    return std::move(*journal);
  }
  // Read from the stopped master's journal: every point printed is journaled
  // once, in order (report b holds loss b - 1), and nothing more.
  static void check_every_point_once(const storage::Journal& journal, std::uint64_t trial_id, std::uint64_t points) {
    auto metrics = journal.metrics(trial_id);
    REQUIRE(metrics);
    std::vector<int> seen(points + 1, 0);
    std::uint64_t wrong = 0, extra = 0;
    for (const auto& record : *metrics) {
      auto loss = record.metrics.find("loss");
      if (loss == record.metrics.end() || record.batches > points) continue;  // the searcher metric, the final result
      if (record.batches == 0 || loss->second != static_cast<double>(record.batches - 1)) ++wrong;
      if (++seen[record.batches] > 1) ++extra;
    }
    const auto missing = static_cast<std::uint64_t>(std::count(seen.begin() + 1, seen.end(), 0));
    CHECK(missing == 0);
    CHECK(extra == 0);
    CHECK(wrong == 0);
  }
  // Read from the stopped master's journal: the trial's stdout is every line
  // printed, once, in order (the journal keeps lines in chunks of several).
  static void check_every_line_once(const storage::Journal& journal, std::uint64_t trial_id, std::uint64_t points) {
    auto logs = journal.logs(trial_id, 0, std::numeric_limits<std::size_t>::max());
    REQUIRE(logs);
    std::vector<std::string> printed;
    for (const auto& line : *logs)  // the command's stdout, without the worker's own notes on it
      if (line.stream == "stdout" && !line.text.starts_with("volador-worker: ")) printed.push_back(line.text);
    std::vector<std::string> expected;
    for (std::uint64_t i = 0; i < points; ++i) expected.push_back("loss=" + std::to_string(i));
    expected.push_back("accuracy=0.5");
    const auto [mismatch, _] = std::mismatch(printed.begin(), printed.end(), expected.begin(), expected.end());
    const auto at = static_cast<std::size_t>(mismatch - printed.begin());
    INFO("stdout lines: " << printed.size() << "; first difference at line " << at + 1 << ": '"
                          << (at < printed.size() ? printed[at] : "(none)") << "' for '"
                          << (at < expected.size() ? expected[at] : "(none)") << "'");
    CHECK((printed == expected));
  }
};

}  // namespace

TEST_CASE("A command printing 200000 metric points has every one journaled once with its value") {
  constexpr std::uint64_t kPoints = 200'000;
  FloodRun run(kPoints, false);
  const auto id = submit(run.cluster, run.project);
  const auto trial_id = run.completed_trial(id);
  CHECK(run.printed() == kPoints);
  const auto journal = run.stopped_journal();
  FloodRun::check_every_point_once(*journal, trial_id, kPoints);
  FloodRun::check_every_line_once(*journal, trial_id, kPoints);
}

TEST_CASE("A rank worker whose link to the master drops mid-flood rejoins and neither loses nor doubles a metric point") {
  FloodRun run(0, true);
  const auto id = submit(run.cluster, run.project);
  REQUIRE(eventually([&] { return fs::exists(run.marks / "worker.pid"); }, 60));
  const auto workers = rank_workers(run.data, 0);  // the pid it wrote is its sandbox's
  REQUIRE(workers.size() == 1);
  const pid_t worker = workers.front();
  // Stopped (its command fills the pipe and waits) until the master gave the silent worker up.
  REQUIRE(stall_until_dropped(worker, port_of(run.cluster.master_address()), 1));
  // A point printed after the stall (a thousand past the last progress mark)
  // reaches the master only over the worker's new link: the flood goes on
  // past the rejoin. (Not found in `trial logs --all`: the flood's log grows
  // faster than a loaded machine reads it.)
  const auto printed_before_resume = run.progress() + 1000;
  REQUIRE(eventually([&] {
    return run.latest_loss_journaled(id).value_or(0) > static_cast<double>(printed_before_resume);
  }, 60));
  std::ofstream(run.marks / "stop") << "stop";
  const auto completed = run.completed_trial(id);
  const auto printed = run.printed();
  INFO("printed " << printed << " points");
  CHECK(printed > printed_before_resume);
  const auto journal = run.stopped_journal();
  const auto logs = journal->logs(completed, 0, std::numeric_limits<std::size_t>::max());
  REQUIRE(logs);
  CHECK(std::ranges::count_if(*logs, [](const auto& line) {
          return line.text == "rank 0 of run 1 reconnected to the master";
        }) == 1);
  FloodRun::check_every_point_once(*journal, completed, printed);
}

TEST_CASE("On a journal disk slow to sync a metric flood is journaled exactly, waits only for the window, and the master answers") {
  constexpr std::uint32_t kWritesPerSecond = 2;  // a synced write takes about 500 ms
  constexpr std::uint64_t kPoints = 200'000;
  constexpr std::uint64_t kBatchPoints = actors::OutboxLimits{}.batch_points;
  TempDir disk_dir;
  const auto data = disk_dir.path() / "data";
  auto disk = SlowDisk::make(disk_dir.path(), data, kWritesPerSecond);
  if (!disk) {
    WARN("skipped: " << disk.error().message);
    return;
  }
  const double synced_write_s = (*disk)->synced_write_seconds();
  INFO("a synced write to the slow disk took " << synced_write_s << " s");
  REQUIRE(synced_write_s > 0.5 / kWritesPerSecond);  // else this test would prove nothing
  FloodRun run(kPoints, false, data);
  (void)run.cluster.admin_environment();  // logged in before the disk is slow
  (*disk)->slow_down(run.cluster.master_pid());
  const auto id = submit(run.cluster, run.project);

  // While the command floods, `experiment list` answers, each time within a
  // moment (a loaded machine's client takes up to a second or two to start
  // and connect), not after journal writes.
  using Clock = std::chrono::steady_clock;
  std::chrono::duration<double> slowest_answer{0};
  int answers_during_flood = 0;
  const auto deadline = Clock::now() + std::chrono::seconds(60);
  while (!fs::exists(run.marks / "printed") && Clock::now() < deadline) {
    const auto asked = Clock::now();
    const auto listed = run.cluster.cli({"experiment", "list", "--json"});
    slowest_answer = std::max<std::chrono::duration<double>>(slowest_answer, Clock::now() - asked);
    REQUIRE(listed.json().size() == 1);
    answers_during_flood += run.progress() > 0 && !fs::exists(run.marks / "printed");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const auto trial_id = run.completed_trial(id);
  REQUIRE(run.printed() == kPoints);
  const auto [flood_s, longest_thousand_s] = run.timing();
  INFO("the flood took " << flood_s << " s (" << kPoints / flood_s << " points/s), the longest thousand points "
                         << longest_thousand_s << " s; experiment list answered " << answers_during_flood
                         << " times during it, the slowest in " << slowest_answer.count() << " s");
  CHECK(answers_during_flood >= 3);
  CHECK(slowest_answer.count() < 3.0);
  // Held up by the window at most as long as a few synced writes take, never for the journal's backlog.
  CHECK(longest_thousand_s < 2.0 + 8 * synced_write_s);
  // Many batches per synced write: several times the rate of one batch a write.
  CHECK(kPoints / flood_s > 3 * kBatchPoints / synced_write_s);
  CHECK((*disk)->writes_issued() > 0);  // the master's writes went through the throttle
  const auto journal = run.stopped_journal();
  FloodRun::check_every_point_once(*journal, trial_id, kPoints);
  FloodRun::check_every_line_once(*journal, trial_id, kPoints);
}
