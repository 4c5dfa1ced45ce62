#include <catch2/catch.hpp>

#include <cmath>
#include <set>

#include "runtime/hparams/sampling.hpp"
#include "runtime/hparams/tests/hp.hpp"

using namespace volador::hparams;
using volador::hparams::testing::hp;

namespace {

std::vector<double> as_doubles(const std::vector<Value>& values) {
  std::vector<double> out;
  for (const auto& v : values) out.push_back(v.get<double>());
  return out;
}

}  // namespace

TEST_CASE("Samples stay within their ranges over many seeds and have JSON types") {
  const Space space{{"layers", hp(IntParam{1, 3, {}})},
                    {"dropout", hp(DoubleParam{0.2, 0.5, {}})},
                    {"lr", hp(LogParam{10, -5, -1, {}})},
                    {"act", hp(ConstParam{"relu"})}};
  std::set<std::int64_t> layers_seen;
  for (std::uint64_t seed = 0; seed < 500; ++seed) {
    Rng rng(seed);
    const Value s = sample(space, rng);
    REQUIRE(s["layers"].is_number_integer());
    REQUIRE(s["dropout"].is_number_float());
    REQUIRE(s["lr"].is_number_float());
    const auto layers = s["layers"].get<std::int64_t>();
    CHECK((layers >= 1 && layers <= 3));
    layers_seen.insert(layers);
    CHECK(s["dropout"].get<double>() >= 0.2);
    CHECK(s["dropout"].get<double>() < 0.5);
    CHECK(s["lr"].get<double>() >= 1e-5 * (1 - 1e-12));
    CHECK(s["lr"].get<double>() <= 1e-1 * (1 + 1e-12));
    CHECK(s["act"] == "relu");
  }
  CHECK(layers_seen == std::set<std::int64_t>{1, 2, 3});
}

TEST_CASE("Sampling is reproducible from the RNG state and varies with the seed") {
  const Space space{{"x", hp(DoubleParam{0, 1, {}})}, {"n", hp(IntParam{-1000, 1000, {}})}};
  std::set<std::string> distinct;
  for (std::uint64_t seed = 0; seed < 100; ++seed) {
    Rng a(seed), b(seed);
    const Value first = sample(space, a);
    CHECK(first == sample(space, b));
    CHECK(sample(space, a) == sample(space, b));
    distinct.insert(first.dump());
  }
  CHECK(distinct.size() == 100);
}

TEST_CASE("Log sampling honours the base") {
  const Space space{{"v", hp(LogParam{2, 3, 5, {}})}};
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    Rng rng(seed);
    const double v = sample(space, rng)["v"].get<double>();
    CHECK(v >= 8.0);
    CHECK(v <= 32.0);
    const double exponent = std::log2(v);
    CHECK((exponent >= 3 - 1e-9 && exponent <= 5 + 1e-9));
  }
}

TEST_CASE("Integer ranges at the limits of int64 sample without overflow") {
  const Space space{{"n", hp(IntParam{std::numeric_limits<std::int64_t>::min(),
                                      std::numeric_limits<std::int64_t>::max(), {}})},
                    {"one", hp(IntParam{-7, -7, {}})}};
  Rng rng(3);
  const Value s = sample(space, rng);
  CHECK(s["n"].is_number_integer());
  CHECK(s["one"] == -7);
}

TEST_CASE("Categorical choices may be any YAML values and every one is drawn") {
  const std::vector<Value> vals{Value("adam"), Value(3), Value(true), Value(2.5), Value::array({1, 2}),
                                Value{{"k", "v"}}, Value(nullptr)};
  const Space space{{"c", hp(CategoricalParam{vals})}};
  std::set<std::string> seen;
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    Rng rng(seed);
    seen.insert(sample(space, rng)["c"].dump());
  }
  std::set<std::string> expected;
  for (const auto& v : vals) expected.insert(v.dump());
  CHECK(seen == expected);
}

TEST_CASE("Nested spaces produce nested samples") {
  const Space optimizer{{"lr", hp(DoubleParam{0.1, 0.2, {}})}, {"name", hp(ConstParam{"sgd"})}};
  const Space space{{"optimizer", hp(optimizer)}, {"global_batch_size", hp(ConstParam{64})}, {"empty", hp(Space{})}};
  Rng rng(9);
  const Value s = sample(space, rng);
  CHECK(s["global_batch_size"] == 64);
  CHECK(s["optimizer"]["name"] == "sgd");
  CHECK(s["optimizer"]["lr"].get<double>() >= 0.1);
  CHECK(s["empty"] == Value::object());
}

TEST_CASE("Grid values follow the manual's examples") {
  CHECK(grid_values(hp(IntParam{0, 2, 3})) == std::vector<Value>{0, 1, 2});
  CHECK(grid_values(hp(IntParam{0, 2, 100})) == std::vector<Value>{0, 1, 2});
  CHECK_THAT(as_doubles(grid_values(hp(DoubleParam{0.1, 0.5, 3}))),
             Catch::Matchers::Approx(std::vector<double>{0.1, 0.3, 0.5}));
  CHECK_THAT(as_doubles(grid_values(hp(LogParam{10, -5, -3, 3}))),
             Catch::Matchers::Approx(std::vector<double>{1e-5, 1e-4, 1e-3}).epsilon(1e-12));
  CHECK(grid_values(hp(CategoricalParam{{10, 20}})) == std::vector<Value>{10, 20});
  CHECK(grid_values(hp(ConstParam{"c"})) == std::vector<Value>{"c"});
}

TEST_CASE("Grid values: rounding, midpoints and exact ends") {
  CHECK(grid_values(hp(IntParam{0, 10, 3})) == std::vector<Value>{0, 5, 10});
  CHECK(grid_values(hp(IntParam{0, 3, 3})) == std::vector<Value>{0, 2, 3});
  CHECK(grid_values(hp(IntParam{-4, 4, 1})) == std::vector<Value>{0});
  CHECK(grid_values(hp(IntParam{0, 3, 1})) == std::vector<Value>{1});
  CHECK(grid_values(hp(IntParam{5, 5, 1})) == std::vector<Value>{5});
  CHECK(grid_values(hp(DoubleParam{1, 2, 1})) == std::vector<Value>{1.5});
  CHECK(grid_values(hp(LogParam{2, 0, 4, 1})) == std::vector<Value>{4.0});
  const auto d = grid_values(hp(DoubleParam{0.1, 0.7, 7}));
  CHECK(d.front().get<double>() == 0.1);
  CHECK(d.back().get<double>() == 0.7);
  CHECK(grid_values(hp(IntParam{0, 1, 2})).front().is_number_integer());
  CHECK(grid_values(hp(DoubleParam{0, 1, 2})).front().is_number_float());
}

TEST_CASE("The grid is the manual's cartesian product, first key slowest") {
  const Space space{{"aparam", hp(IntParam{0, 2, 3})},
                    {"bparam", hp(CategoricalParam{{10, 20}})},
                    {"cparam", hp(ConstParam{"c"})}};
  const std::vector<Value> expected{
      {{"aparam", 0}, {"bparam", 10}, {"cparam", "c"}}, {{"aparam", 0}, {"bparam", 20}, {"cparam", "c"}},
      {{"aparam", 1}, {"bparam", 10}, {"cparam", "c"}}, {{"aparam", 1}, {"bparam", 20}, {"cparam", "c"}},
      {{"aparam", 2}, {"bparam", 10}, {"cparam", "c"}}, {{"aparam", 2}, {"bparam", 20}, {"cparam", "c"}},
  };
  CHECK(grid(space) == expected);
  CHECK(Grid(space).size() == 6);
}

TEST_CASE("Grids of nested spaces keep the nesting") {
  const Space optimizer{{"lr", hp(LogParam{10, -2, -1, 2})}, {"name", hp(CategoricalParam{{"sgd", "adam"}})}};
  const Space space{{"opt", hp(optimizer)}, {"z", hp(IntParam{1, 2, 2})}, {"e", hp(Space{})}};
  const auto points = grid(space);
  REQUIRE(points.size() == 8);
  CHECK(points[0]["e"] == Value::object());
  CHECK(points[0]["opt"]["lr"].get<double>() == Approx(0.01));
  CHECK(points[0]["opt"]["name"] == "sgd");
  CHECK(points[0]["z"] == 1);
  CHECK(points[1]["z"] == 2);
  CHECK(points[2]["opt"]["name"] == "adam");
  CHECK(points[7]["opt"]["lr"].get<double>() == Approx(0.1));
  CHECK(grid_values(hp(optimizer)).size() == 4);
  CHECK(grid(Space{}) == std::vector<Value>{Value::object()});
}

TEST_CASE("A huge grid reports a saturated size instead of overflowing") {
  Space space;
  for (int i = 0; i < 10; ++i) space["p" + std::to_string(i)] = hp(IntParam{0, 1'000'000, 100'000});
  CHECK(Grid(space).size() == std::numeric_limits<std::uint64_t>::max());
}

TEST_CASE("Grid axes are computed, not materialised, and handle the full int64 range") {
  constexpr auto lo = std::numeric_limits<std::int64_t>::min();
  constexpr auto hi = std::numeric_limits<std::int64_t>::max();
  const auto full = grid_values(hp(IntParam{lo, hi, 3}));
  REQUIRE(full.size() == 3);
  CHECK(full.front() == lo);
  CHECK(full.back() == hi);
  const Grid big({{"d", hp(DoubleParam{0, 1, 4'000'000'000u})}, {"i", hp(IntParam{0, 9, 4'000'000'000u})}});
  CHECK(big.size() == 40'000'000'000ULL);
  CHECK(big.point(big.size() - 1) == Value{{"d", 1.0}, {"i", 9}});
  CHECK(big.point(10) == Value{{"d", 1.0 / 3'999'999'999.0}, {"i", 0}});
}

TEST_CASE("Grid search needs a count on every range") {
  CHECK(validate_grid_space({{"a", hp(IntParam{0, 2, 3})}, {"b", hp(CategoricalParam{{1}})}}).has_value());
  const Space nested{{"lr", hp(DoubleParam{0, 1, {}})}};
  const auto missing = validate_grid_space({{"opt", hp(nested)}});
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().code == volador::ErrorCode::invalid_argument);
  CHECK_THAT(missing.error().message, Catch::Matchers::Contains("opt.lr"));
  CHECK_FALSE(validate_grid_space({{"n", hp(IntParam{0, 2, 0})}}).has_value());
}

TEST_CASE("Constant spaces are recognised through nesting") {
  CHECK(is_constant({}));
  CHECK(is_constant({{"a", hp(ConstParam{1})}, {"n", hp(Space{{"b", hp(ConstParam{"x"})}})}}));
  CHECK_FALSE(is_constant({{"n", hp(Space{{"b", hp(IntParam{0, 1, {}})}})}}));
  CHECK_FALSE(is_constant({{"c", hp(CategoricalParam{{1}})}}));
}

TEST_CASE("Trial seeds are reproducible, in range and distinct") {
  std::set<std::uint32_t> seeds;
  for (std::uint64_t i = 1; i <= 1000; ++i) {
    const auto s = trial_seed(42, i);
    CHECK(s == trial_seed(42, i));
    CHECK(s <= 0x7fffffffU);
    seeds.insert(s);
  }
  CHECK(seeds.size() == 1000);
  CHECK(trial_seed(1, 1) != trial_seed(2, 1));
}
