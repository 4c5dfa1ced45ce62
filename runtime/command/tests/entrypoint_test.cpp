#include <catch2/catch.hpp>

#include "runtime/command/entrypoint.hpp"

using namespace volador::command;

TEST_CASE("module:Class is a Python trial") {
  auto entrypoint = classify_entrypoint("model_def:MyTrial");
  REQUIRE(entrypoint);
  const auto* trial = std::get_if<PythonTrialEntrypoint>(&*entrypoint);
  REQUIRE(trial);
  CHECK(trial->module == "model_def");
  CHECK(trial->class_name == "MyTrial");

  auto dotted = classify_entrypoint("  pkg.sub_2.model:_Trial2\n");
  REQUIRE(dotted);
  REQUIRE(std::holds_alternative<PythonTrialEntrypoint>(*dotted));
  CHECK(std::get<PythonTrialEntrypoint>(*dotted).module == "pkg.sub_2.model");

  auto file = classify_entrypoint("model_def.py:MyTrial");
  REQUIRE(file);
  REQUIRE(std::holds_alternative<PythonTrialEntrypoint>(*file));
  CHECK(std::get<PythonTrialEntrypoint>(*file).module == "model_def");
}

TEST_CASE("native:name is a native trial") {
  auto entrypoint = classify_entrypoint("native:softmax");
  REQUIRE(entrypoint);
  REQUIRE(std::holds_alternative<NativeTrialEntrypoint>(*entrypoint));
  CHECK(std::get<NativeTrialEntrypoint>(*entrypoint).name == "softmax");
}

TEST_CASE("native: without a name is an error") {
  auto entrypoint = classify_entrypoint("native: ");
  REQUIRE_FALSE(entrypoint);
  CHECK(entrypoint.error().message == "`native:` names no trial; write native:<name>");
}

TEST_CASE("anything else is a command split into argv") {
  using Words = std::vector<std::string>;
  const std::vector<std::pair<std::string, Words>> cases{
      {"python3 train.py --epochs 3", {"python3", "train.py", "--epochs", "3"}},
      {"./run.sh", {"./run.sh"}},
      {"dir/model_def.py:MyTrial", {"dir/model_def.py:MyTrial"}},
      {"1model:Trial", {"1model:Trial"}},
      {"model_def:My-Trial", {"model_def:My-Trial"}},
      {"python3 -m pkg:main", {"python3", "-m", "pkg:main"}},
  };
  for (const auto& [text, argv] : cases) {
    CAPTURE(text);
    auto entrypoint = classify_entrypoint(text);
    REQUIRE(entrypoint);
    REQUIRE(std::holds_alternative<CommandEntrypoint>(*entrypoint));
    CHECK(std::get<CommandEntrypoint>(*entrypoint).argv == argv);
  }
}

TEST_CASE("a command that does not split is an error with the column in the entrypoint") {
  auto entrypoint = classify_entrypoint("  python3 'train.py");
  REQUIRE_FALSE(entrypoint);
  CHECK(entrypoint.error().message == "unterminated ' opened at column 11");
}
