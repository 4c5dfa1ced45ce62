#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <fstream>
#include <random>
#include <utility>

#include <nlohmann/json.hpp>

#include "runtime/worker/trial_file.hpp"

using namespace volador;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("volador-trial-file-" + std::to_string(std::random_device{}()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

wire::LaunchSpec launch_spec() {
  wire::LaunchSpec spec;
  spec.trial_id = 7;
  spec.experiment_id = 3;
  spec.run_id = 2;
  spec.rank = 1;
  spec.world_size = 4;
  spec.local_rank = 1;
  spec.local_size = 2;
  spec.node_index = 0;
  spec.node_count = 2;
  spec.entrypoint = "model_def:MyTrial";
  spec.hparams_json = R"({"learning_rate":0.1})";
  spec.seed = 99;
  spec.global_batch_size = 64;
  spec.data_json = R"({"url":"https://example.com/data"})";
  spec.restore_path = "/checkpoints/abc";
  spec.kill_grace_period_ms = 2500;  // not the default: the worker must learn it from the file
  return spec;
}

// Whether `read` holds what `written` launched: its fields, and its hyperparameters and data as values.
bool reads_back(const worker::TrialFile& read, wire::LaunchSpec written) {
  const auto hparams = nlohmann::json::parse(std::exchange(written.hparams_json, ""));
  const auto data = nlohmann::json::parse(std::exchange(written.data_json, ""));
  return read.spec == written && read.hparams == hparams && read.data == data;
}

}  // namespace

TEST_CASE("A worker reads back every field of the trial file its agent wrote, and nothing else") {
  TempDir dir;
  auto written = launch_spec();
  written.archive = "the packed model";  // not for the file
  written.token = "secret";              // travels in the environment
  REQUIRE(worker::write_trial_file(written, dir.path));
  const auto read = worker::read_trial_file(dir.path / worker::kTrialFileName);
  REQUIRE(read);
  CHECK(reads_back(*read, launch_spec()));
}

TEST_CASE("The trial file is one JSON object holding the launch's hyperparameters and data as they came, and quoted strings") {
  TempDir dir;
  auto written = launch_spec();
  written.hparams_json = R"({"layers":[1,2],"name":"a\"b","rate":1e-3})";
  written.entrypoint = "python3 train.py --tag \"x\\y\"\t\n\x01 é";
  REQUIRE(worker::write_trial_file(written, dir.path));
  const auto path = dir.path / worker::kTrialFileName;
  std::ifstream in(path);
  const auto json = nlohmann::json::parse(in);  // what the worker and any other reader parse
  CHECK(json.at("hparams") == nlohmann::json::parse(written.hparams_json));
  CHECK(json.at("data") == nlohmann::json::parse(written.data_json));
  CHECK(json.at("entrypoint") == written.entrypoint);
  const auto read = worker::read_trial_file(path);
  REQUIRE(read);
  CHECK(reads_back(*read, written));
}

TEST_CASE("A launch whose hyperparameters or data are not one JSON value writes no trial file") {
  TempDir dir;
  for (const auto* text : {"", "{", R"({"a":1}, "rank": 9)", "{} {}"}) {
    auto written = launch_spec();
    written.hparams_json = text;
    auto status = worker::write_trial_file(written, dir.path);
    REQUIRE_FALSE(status);
    CHECK(status.error().code == ErrorCode::invalid_argument);
    written = launch_spec();
    written.data_json = text;
    status = worker::write_trial_file(written, dir.path);
    REQUIRE_FALSE(status);
    CHECK(status.error().code == ErrorCode::invalid_argument);
  }
  CHECK_FALSE(fs::exists(dir.path / worker::kTrialFileName));
}

TEST_CASE("A launch string that is not UTF-8 throws nothing at the agent, and the worker refuses the file") {
  TempDir dir;
  auto written = launch_spec();
  written.entrypoint = "sh run\xff.sh";
  REQUIRE(worker::write_trial_file(written, dir.path));
  const auto read = worker::read_trial_file(dir.path / worker::kTrialFileName);
  REQUIRE_FALSE(read);
  CHECK(read.error().code == ErrorCode::corruption);
}

TEST_CASE("The trial file of a reused folder is the same file rewritten, holding the new trial alone") {
  TempDir dir;
  auto first = launch_spec();
  first.hparams_json = R"({"learning_rate":0.1,"note":")" + std::string(300, 'x') + R"("})";
  REQUIRE(worker::write_trial_file(first, dir.path));
  const auto path = dir.path / worker::kTrialFileName;
  struct stat before {}, after {};
  REQUIRE(::stat(path.c_str(), &before) == 0);
  REQUIRE(worker::write_trial_file(launch_spec(), dir.path));  // shorter
  REQUIRE(::stat(path.c_str(), &after) == 0);
  CHECK(after.st_ino == before.st_ino);
  CHECK(after.st_size < before.st_size);
  const auto read = worker::read_trial_file(path);
  REQUIRE(read);
  CHECK(reads_back(*read, launch_spec()));
}

TEST_CASE("A trial file that is not a JSON object or lacks a field is refused naming the file") {
  TempDir dir;
  const auto path = dir.path / worker::kTrialFileName;
  std::ofstream(path) << "[1, 2]";
  auto read = worker::read_trial_file(path);
  REQUIRE_FALSE(read);
  CHECK(read.error().message == "the trial file " + path.string() + " is not a JSON object");
  std::ofstream(path) << R"({"trial_id": 7})";
  read = worker::read_trial_file(path);
  REQUIRE_FALSE(read);
  CHECK(read.error().code == ErrorCode::corruption);
  CHECK(read.error().message.find("the trial file " + path.string() + " is incomplete") == 0);
  CHECK_FALSE(worker::read_trial_file(dir.path / "missing.json"));
}

TEST_CASE("A launch's first workload reaches the worker through the trial file, and a bad one is refused") {
  TempDir dir;
  auto written = launch_spec();
  written.first_workload = wire::WorkloadRequest{.kind = wire::WorkloadKind::run, .start_batch = 0, .batches = 100,
                                                 .path = "/checkpoints/staging", .metric_pattern = "(?P<name>\\w+)=x",
                                                 .reports_in_answer = true};
  REQUIRE(worker::write_trial_file(written, dir.path));
  const auto path = dir.path / worker::kTrialFileName;
  auto read = worker::read_trial_file(path);
  REQUIRE(read);
  CHECK(reads_back(*read, written));
  REQUIRE(worker::write_trial_file(launch_spec(), dir.path));  // rewritten without one: none
  read = worker::read_trial_file(path);
  REQUIRE(read);
  CHECK_FALSE(read->spec.first_workload);
  std::ifstream in(path);
  auto json = nlohmann::json::parse(in);
  json["first_workload"] = "0g";
  std::ofstream(path) << json.dump();
  read = worker::read_trial_file(path);
  REQUIRE_FALSE(read);
  CHECK(read.error().code == ErrorCode::corruption);
  CHECK(read.error().message.find("bad first_workload") != std::string::npos);
}
