// The read model's files of ended experiments' trials: what is written reads
// back the same, a damaged or missing file is an error naming it, and opening
// starts from an empty folder.

#include <catch2/catch.hpp>

#include <random>

#include "master/summary_spill.hpp"

using namespace volador;
using namespace volador::master;

namespace {

// A fresh folder under /tmp, removed afterwards.
struct TempDir {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("volador-spill-" + std::to_string(std::random_device{}()));
  ~TempDir() { std::filesystem::remove_all(dir); }
  [[nodiscard]] const std::filesystem::path& path() const { return dir; }
};

}  // namespace

TEST_CASE("Spilled trials read back as written, in order") {
  TempDir dir;
  auto spill = SummarySpill::open(dir.path() / "summaries").value();
  const std::vector<std::string> trials{std::string("\0\x01\xff", 3), "", std::string(70000, 'x')};
  REQUIRE(spill.write(4, trials));
  CHECK(spill.read(4).value() == trials);
  REQUIRE(spill.write(4, {"y"}));  // replaced, not appended
  CHECK(spill.read(4).value() == std::vector<std::string>{"y"});
}

TEST_CASE("A missing or cut spill file is an error naming it") {
  TempDir dir;
  auto spill = SummarySpill::open(dir.path()).value();
  CHECK_THAT(spill.read(9).error().message, Catch::Contains("experiment-9.trials"));
  REQUIRE(spill.write(9, {"abcdef"}));
  std::filesystem::resize_file(dir.path() / "experiment-9.trials", 7);
  const auto cut = spill.read(9);
  REQUIRE_FALSE(cut);
  CHECK(cut.error().code == ErrorCode::corruption);
  CHECK_THAT(cut.error().message, Catch::Contains("experiment-9.trials") && Catch::Contains("cut"));
  spill.remove(9);
  CHECK_FALSE(std::filesystem::exists(dir.path() / "experiment-9.trials"));
}

TEST_CASE("Opening a spill folder removes a previous run's files") {
  TempDir dir;
  REQUIRE(SummarySpill::open(dir.path()).value().write(1, {"old"}));
  auto reopened = SummarySpill::open(dir.path()).value();
  CHECK_FALSE(reopened.read(1));
}

TEST_CASE("One spilled trial reads back by its position") {
  TempDir dir;
  auto spill = SummarySpill::open(dir.path()).value();
  REQUIRE(spill.write(2, {"first", "second", "third"}));
  CHECK(spill.read_one(2, 1).value() == "second");
  const auto beyond = spill.read_one(2, 3);
  REQUIRE_FALSE(beyond);
  CHECK_THAT(beyond.error().message, Catch::Contains("experiment-2.trials") && Catch::Contains("holds 3 trials"));
}
