#include <catch2/catch.hpp>

#include "runtime/command/hparam_passing.hpp"

using namespace volador::command;
using nlohmann::json;
using Words = std::vector<std::string>;

TEST_CASE("hyperparameters become --name=value arguments in key order") {
  const json hparams = {{"lr", 0.1}, {"epochs", 3}, {"name", "res net"}, {"amp", true}};
  CHECK(hparam_arguments(hparams) == Words{"--amp=true", "--epochs=3", "--lr=0.1", "--name=res net"});
}

TEST_CASE("nested hyperparameters are flattened with dots") {
  const json hparams = {{"optimizer", {{"lr", 0.1}, {"betas", {{"b1", 0.9}}}}}, {"empty", json::object()}, {"z", 1}};
  CHECK(hparam_arguments(hparams) == Words{"--optimizer.betas.b1=0.9", "--optimizer.lr=0.1", "--z=1"});
}

TEST_CASE("float arguments take the shortest form that reads back the same") {
  const json hparams = {{"a", 1e-5}, {"b", 3.0}, {"c", 1.0 / 3}, {"d", -2.5e300}, {"e", -7}};
  CHECK(hparam_arguments(hparams) ==
        Words{"--a=1e-05", "--b=3", "--c=0.3333333333333333", "--d=-2.5e+300", "--e=-7"});
}

TEST_CASE("lists and null arguments are compact JSON") {
  const json hparams = {{"layers", {64, 32}}, {"none", nullptr}, {"mixed", {"a", 1.5}}};
  CHECK(hparam_arguments(hparams) == Words{"--layers=[64,32]", "--mixed=[\"a\",1.5]", "--none=null"});
}

TEST_CASE("anything but an object gives no arguments") {
  CHECK(hparam_arguments(json::array({1, 2})).empty());
  CHECK(hparam_arguments(json(5)).empty());
}

TEST_CASE("the hyperparameters file and variable hold the object as JSON") {
  const json hparams = {{"lr", 0.1}, {"opt", {{"m", 0.9}}}};
  CHECK(render_hparams_json(hparams) == R"({"lr":0.1,"opt":{"m":0.9}})");
  CHECK(hparam_environment(hparams, "/tmp/t/hparams.json") ==
        EnvironmentVariables{{"VOLADOR_HPARAMS", R"({"lr":0.1,"opt":{"m":0.9}})"},
                             {"VOLADOR_HPARAMS_FILE", "/tmp/t/hparams.json"}});
}

TEST_CASE("hyperparameters too large for the environment are passed only as a file") {
  const json hparams = {{"blob", std::string(kMaxHparamsEnvBytes, 'x')}};
  CHECK(hparam_environment(hparams, "/h.json") == EnvironmentVariables{{"VOLADOR_HPARAMS_FILE", "/h.json"}});
}
