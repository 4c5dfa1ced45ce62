#include <catch2/catch.hpp>

#include "runtime/cli/command_line.hpp"
#include "runtime/cli/tests/command_line_support.hpp"

using namespace volador::cli;
using namespace volador::cli::testing;

TEST_CASE("The lifecycle verbs name their experiment, changes, labels and confirmation") {
  auto remove = parsed({"experiment", "delete", "7", "--yes"});
  CHECK(remove.verb == "experiment delete");
  CHECK(remove.id == 7);
  CHECK(remove.yes);
  CHECK_FALSE(parsed({"experiment", "delete", "7"}).yes);
  for (const char* verb : {"fork", "continue"}) {
    auto again = parsed({"experiment", verb, "3", "--config", "more.yaml", "--json"});
    CHECK(again.verb == std::string("experiment ") + verb);
    CHECK(again.id == 3);
    CHECK(again.changes_path == "more.yaml");
    CHECK(again.json);
  }
  CHECK(parsed({"experiment", "fork", "3"}).changes_path.empty());
  auto labels = parsed({"experiment", "set", "labels", "4", "prod", "mnist"});
  CHECK(labels.verb == "experiment set labels");
  CHECK(labels.labels == std::vector<std::string>{"prod", "mnist"});
  CHECK(parsed({"experiment", "set", "labels", "4"}).labels.empty());
  auto description = parsed({"experiment", "set", "description", "4", "the one to ship"});
  CHECK(description.text == "the one to ship");
  auto definition = parsed({"experiment", "download-model-def", "4", "out"});
  CHECK(definition.dir == "out");
  CHECK(parsed({"checkpoint", "delete", "abc"}).uuid == "abc");
}

TEST_CASE("The model verbs name the model, checkpoint, version and folder") {
  auto create = parsed({"model", "create", "mlp", "--description", "digits"});
  CHECK(create.verb == "model create");
  CHECK(create.model_name == "mlp");
  CHECK(create.description == "digits");
  auto registered = parsed({"model", "register", "mlp", "0f0f"});
  CHECK(registered.uuid == "0f0f");
  CHECK(parsed({"model", "list", "--json"}).json);
  CHECK(parsed({"model", "describe", "mlp"}).model_name == "mlp");
  auto download = parsed({"model", "download", "mlp", "out", "--version", "2"});
  CHECK(download.version == 2);
  CHECK(download.dir == "out");
  CHECK(parsed({"model", "download", "mlp", "out"}).version == 0);
}

TEST_CASE("The lifecycle and model verbs refuse what is missing or wrong, naming the verb") {
  CHECK(refused({"experiment", "delete"}) == "volador: experiment delete: missing ID\n");
  CHECK(refused({"experiment", "set"}).starts_with("volador: experiment set: missing command (one of: description, labels)"));
  CHECK(refused({"model", "register", "mlp"}) == "volador: model register: missing CHECKPOINT_UUID\n");
  CHECK(refused({"model", "download", "mlp", "out", "--version", "0"}).starts_with("volador: model download: --version"));
}
