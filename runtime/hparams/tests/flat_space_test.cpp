#include <catch2/catch.hpp>

#include <cmath>
#include <set>

#include "runtime/hparams/flat_space.hpp"
#include "runtime/hparams/tests/hp.hpp"

using namespace volador::hparams;
using volador::hparams::testing::hp;

namespace {

const Space kSpace{{"n", hp(IntParam{-2, 3, {}})},
                   {"opt", hp(Space{{"lr", hp(LogParam{10, -4, -1, {}})}, {"kind", hp(CategoricalParam{{"sgd", "adam"}})}})},
                   {"x", hp(DoubleParam{0, 0.5, {}})},
                   {"act", hp(ConstParam{"relu"})}};

}  // namespace

TEST_CASE("FlatSpace lists leaves in key order with nested keys in place") {
  const FlatSpace flat(kSpace);
  std::vector<std::vector<std::string>> paths;
  std::vector<LeafKind> kinds;
  for (const auto& leaf : flat.leaves()) {
    paths.push_back(leaf.path);
    kinds.push_back(leaf.kind);
  }
  CHECK(paths == std::vector<std::vector<std::string>>{{"act"}, {"n"}, {"opt", "kind"}, {"opt", "lr"}, {"x"}});
  CHECK(kinds == std::vector<LeafKind>{LeafKind::constant, LeafKind::integer, LeafKind::categorical, LeafKind::log,
                                       LeafKind::real});
  CHECK(flat.leaves()[2].hi == 1.0);
  CHECK(flat.leaves()[3].lo == -4.0);
}

TEST_CASE("FlatSpace samples cover every value and decode to typed, nested JSON") {
  const FlatSpace flat(kSpace);
  Rng rng(3);
  std::set<std::int64_t> ints;
  std::set<std::string> kinds;
  for (int i = 0; i < 300; ++i) {
    const auto coords = flat.sample(rng);
    const Value v = flat.decode(coords);
    CHECK(v["act"] == "relu");
    ints.insert(v["n"].get<std::int64_t>());
    kinds.insert(v["opt"]["kind"].get<std::string>());
    CHECK(v["opt"]["lr"].get<double>() == Approx(std::pow(10.0, coords[3])));
    CHECK((v["x"].get<double>() >= 0 && v["x"].get<double>() <= 0.5));
  }
  CHECK(ints == std::set<std::int64_t>{-2, -1, 0, 1, 2, 3});
  CHECK(kinds == std::set<std::string>{"sgd", "adam"});
}

TEST_CASE("FlatSpace decode rounds and clamps coordinates") {
  const FlatSpace flat(kSpace);
  const std::vector<double> coords{0, 7.6, 0.4, -9, -1};
  const Value v = flat.decode(coords);
  CHECK(v == Value{{"act", "relu"}, {"n", 3}, {"opt", {{"kind", "sgd"}, {"lr", std::pow(10.0, -4)}}}, {"x", 0.0}});
}

TEST_CASE("The random engine's state round-trips through text") {
  Rng rng(42);
  rng.discard(17);
  auto copy = rng_from_text(rng_to_text(rng));
  REQUIRE(copy.has_value());
  CHECK((*copy)() == rng());
  CHECK_FALSE(rng_from_text("not numbers").has_value());
}
