#include <catch2/catch.hpp>

#include "runtime/command/json_environment.hpp"

using namespace volador::command;
using nlohmann::json;

TEST_CASE("the hyperparameters and the data section reach the variable and the file as one line of JSON") {
  const json hparams = {{"lr", 0.1}, {"opt", {{"m", 0.9}}}};
  CHECK(render_json(hparams) == R"({"lr":0.1,"opt":{"m":0.9}})");
  CHECK(json_environment(hparams, kHparamsVariables, "/tmp/t/hparams.json") ==
        EnvironmentVariables{{"VOLADOR_HPARAMS", R"({"lr":0.1,"opt":{"m":0.9}})"},
                             {"VOLADOR_HPARAMS_FILE", "/tmp/t/hparams.json"}});
  const json data = {{"url", "https://example.com/mnist"}, {"shards", {1, 2}}};
  CHECK(json_environment(data, kDataVariables, "/tmp/t/data.json") ==
        EnvironmentVariables{{"VOLADOR_DATA", R"({"shards":[1,2],"url":"https://example.com/mnist"})"},
                             {"VOLADOR_DATA_FILE", "/tmp/t/data.json"}});
}

TEST_CASE("JSON too large for the environment is passed only as a file") {
  const json hparams = {{"blob", std::string(kMaxInlineJsonBytes, 'x')}};
  CHECK(json_environment(hparams, kHparamsVariables, "/h.json") ==
        EnvironmentVariables{{"VOLADOR_HPARAMS_FILE", "/h.json"}});
}

TEST_CASE("invalid UTF-8 in a string is replaced rather than thrown about") {
  CHECK(render_json(json{{"name", std::string("a\xff")}}) == "{\"name\":\"a\xef\xbf\xbd\"}");
}
