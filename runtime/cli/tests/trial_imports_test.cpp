#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>

#include "runtime/cli/trial_imports.hpp"

using volador::cli::unsupported_trial_imports;
namespace fs = std::filesystem;

namespace {

struct Project {
  fs::path dir = fs::temp_directory_path() / ("volador-imports-" + std::to_string(std::random_device{}()));
  explicit Project(const std::string& file, const std::string& text) {
    fs::create_directories((dir / file).parent_path());
    std::ofstream(dir / file) << text;
  }
  ~Project() { fs::remove_all(dir); }
};

}  // namespace

TEST_CASE("Keras and DeepSpeed trial imports are found with their line and what to do instead") {
  Project keras("model_def.py", "import torch\nfrom determined.keras import TFKerasTrial\n");
  auto found = unsupported_trial_imports(keras.dir, {"model_def", "MyTrial"});
  REQUIRE(found.size() == 1);
  CHECK_THAT(found[0], Catch::Contains("model_def.py:2: imports determined.keras: Keras trials are not available") &&
                           Catch::Contains("PyTorchTrial"));

  Project deepspeed("pkg/trial.py", "import determined.pytorch.deepspeed as det_ds\n");
  found = unsupported_trial_imports(deepspeed.dir, {"pkg.trial", "T"});
  REQUIRE(found.size() == 1);
  CHECK_THAT(found[0], Catch::Contains("trial.py:1: imports DeepSpeed"));

  for (const std::string line : {"from determined import keras\n", "from determined.pytorch import DeepSpeedTrial\n",
                                 "import deepspeed\n"}) {
    Project other("model_def.py", line);
    CHECK(unsupported_trial_imports(other.dir, {"model_def", "T"}).size() == 1);
  }
}

TEST_CASE("A PyTorch trial, a missing module and a mention in a comment are left alone") {
  Project pytorch("model_def.py", "from determined.pytorch import PyTorchTrial\n# unlike determined.keras, ...\n");
  CHECK(unsupported_trial_imports(pytorch.dir, {"model_def", "T"}).empty());
  CHECK(unsupported_trial_imports(pytorch.dir, {"absent", "T"}).empty());
}
