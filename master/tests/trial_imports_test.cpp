#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>

#include "master/trial_imports.hpp"
#include "storage/archives/archive.hpp"

using volador::master::unsupported_trial_imports;
namespace fs = std::filesystem;

namespace {

// A project folder with one file, packed as a client uploads it.
struct Project {
  fs::path dir = fs::temp_directory_path() / ("volador-imports-" + std::to_string(std::random_device{}()));
  std::string archive;
  explicit Project(const std::string& file, const std::string& text) {
    fs::create_directories((dir / file).parent_path());
    std::ofstream(dir / file) << text;
    archive = volador::archives::pack_directory(dir).value();
  }
  ~Project() { fs::remove_all(dir); }
};

// The lines found in `project` for the entrypoint module `module`.
std::vector<std::string> found_in(const Project& project, const std::string& module) {
  auto found = unsupported_trial_imports(project.archive, {module, "MyTrial"});
  REQUIRE(found);
  return *found;
}

}  // namespace

TEST_CASE("Keras and DeepSpeed trial imports are found with their line and what to do instead") {
  Project keras("model_def.py", "import torch\nfrom determined.keras import TFKerasTrial\n");
  auto found = found_in(keras, "model_def");
  REQUIRE(found.size() == 1);
  CHECK_THAT(found[0], Catch::Contains("model_def.py:2: imports determined.keras: Keras trials are not available") &&
                           Catch::Contains("PyTorchTrial"));

  Project deepspeed("pkg/trial.py", "import determined.pytorch.deepspeed as det_ds\n");
  found = found_in(deepspeed, "pkg.trial");
  REQUIRE(found.size() == 1);
  CHECK_THAT(found[0], Catch::Contains("trial.py:1: imports DeepSpeed"));

  for (const std::string line : {"from determined import keras\n", "from determined.pytorch import DeepSpeedTrial\n",
                                 "import deepspeed\n"}) {
    Project other("model_def.py", line);
    CHECK(found_in(other, "model_def").size() == 1);
  }
  Project package("pkg/__init__.py", "import deepspeed\n");
  CHECK_THAT(found_in(package, "pkg"), Catch::VectorContains(std::string(
      "pkg/__init__.py:1: imports DeepSpeed: DeepSpeed trials are not available in Volador; use "
      "determined.pytorch.PyTorchTrial, or run the DeepSpeed script as a command entrypoint (entrypoint: deepspeed "
      "train.py ...)")));
}

TEST_CASE("A PyTorch trial, a missing module and a mention in a comment are left alone") {
  Project pytorch("model_def.py", "from determined.pytorch import PyTorchTrial\n# unlike determined.keras, ...\n");
  CHECK(found_in(pytorch, "model_def").empty());
  CHECK(found_in(pytorch, "absent").empty());
}
