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

TEST_CASE("placeholders in the arguments take the trial's values and nothing is appended") {
  const json hparams = {{"lr", 0.05}, {"hidden", 32}, {"optimizer", {{"name", "sgd"}}}, {"global_batch_size", 64}};
  const Words argv{"python3", "train.py", "--lr", "${hparams.lr}", "--width=${hparams.hidden}x${hparams.hidden}",
                   "--opt=${hparams.optimizer.name}", "${HOME}"};
  auto arguments = command_arguments(argv, hparams);
  REQUIRE(arguments);
  CHECK(*arguments ==
        Words{"python3", "train.py", "--lr", "0.05", "--width=32x32", "--opt=sgd", "${HOME}"});
}

TEST_CASE("without placeholders every hyperparameter is appended as --name=value") {
  const json hparams = {{"lr", 0.05}, {"hidden", 32}};
  auto arguments = command_arguments({"./run.sh", "--epochs", "3"}, hparams);
  REQUIRE(arguments);
  CHECK(*arguments == Words{"./run.sh", "--epochs", "3", "--hidden=32", "--lr=0.05"});
}

TEST_CASE("placeholder names are listed in order and malformed ones are refused") {
  auto names = placeholder_names({"a", "--x=${hparams.lr}", "${hparams.opt.momentum}${hparams.lr}"});
  REQUIRE(names);
  CHECK(*names == Words{"lr", "opt.momentum", "lr"});
  const std::vector<std::pair<std::string, std::string>> bad{{"${hparams.lr", "'${hparams.lr' opens"},
                                                             {"${hparams.}", "'${hparams.}' names no"},
                                                             {"--x=${hparams..lr}", "'${hparams..lr}' names no"},
                                                             {"${hparams.opt.}", "'${hparams.opt.}' names no"}};
  for (const auto& [argument, said] : bad) {
    INFO(argument);
    auto refused = placeholder_names({"run", argument});
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message.find(said) != std::string::npos);
  }
}

TEST_CASE("a placeholder naming no value of the trial is an error naming it") {
  const json hparams = {{"lr", 0.05}, {"optimizer", {{"name", "sgd"}}}};
  for (const std::string name : {"lrr", "optimizer", "optimizer.momentum", "lr.x"}) {
    INFO(name);
    auto refused = command_arguments({"run", "${hparams." + name + "}"}, hparams);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message.find("no hyperparameter " + name) != std::string::npos);
  }
}
