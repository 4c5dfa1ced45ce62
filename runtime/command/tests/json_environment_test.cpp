#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "runtime/command/json_environment.hpp"

using namespace volador::command;
using nlohmann::json;

TEST_CASE("the hyperparameters and the data section reach the variable and the file as one line of JSON") {
  const json hparams = {{"lr", 0.1}, {"opt", {{"m", 0.9}}}};
  CHECK(render_json(hparams) == R"({"lr":0.1,"opt":{"m":0.9}})");
  CHECK(json_environment(render_json(hparams), kHparamsVariables, "/tmp/t/hparams.json") ==
        EnvironmentVariables{{"VOLADOR_HPARAMS", R"({"lr":0.1,"opt":{"m":0.9}})"},
                             {"VOLADOR_HPARAMS_FILE", "/tmp/t/hparams.json"}});
  const json data = {{"url", "https://example.com/mnist"}, {"shards", {1, 2}}};
  CHECK(json_environment(render_json(data), kDataVariables, "/tmp/t/data.json") ==
        EnvironmentVariables{{"VOLADOR_DATA", R"({"shards":[1,2],"url":"https://example.com/mnist"})"},
                             {"VOLADOR_DATA_FILE", "/tmp/t/data.json"}});
}

TEST_CASE("JSON too large for the environment is passed only as a file") {
  const json hparams = {{"blob", std::string(kMaxInlineJsonBytes, 'x')}};
  CHECK(json_environment(render_json(hparams), kHparamsVariables, "/h.json") ==
        EnvironmentVariables{{"VOLADOR_HPARAMS_FILE", "/h.json"}});
}

TEST_CASE("invalid UTF-8 in a string is replaced rather than thrown about") {
  CHECK(render_json(json{{"name", std::string("a\xff")}}) == "{\"name\":\"a\xef\xbf\xbd\"}");
}

namespace {

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("the JSON file holds the line and a newline, and replaces what an earlier run left there") {
  const auto dir = std::filesystem::temp_directory_path() / ("json-environment-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const auto file = dir / "volador-hparams.json";
  std::ofstream(file) << R"({"lr":0.5,"left":"by an earlier run, longer than the new line"})" << '\n';
  REQUIRE(write_json_file(R"({"lr":0.1})", file));
  CHECK(read_text(file) == "{\"lr\":0.1}\n");
  std::filesystem::remove_all(dir);
}

TEST_CASE("a JSON file that cannot be written is an error naming it, not a command started without it") {
  const std::filesystem::path file = "/nonexistent-volador-folder/volador-data.json";
  const auto written = write_json_file("{}", file);
  REQUIRE_FALSE(written.has_value());
  CHECK(written.error().code == volador::ErrorCode::io);
  CHECK(written.error().message == "cannot write " + file.string() + ": No such file or directory");
}
