// The Parzen estimator of tpe against Optuna 3.1's _ParzenEstimator: the
// expected log-densities were computed with Optuna's (default parameters;
// `multivariate=True` for the joint one) on the same observations.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>

#include "runtime/search/parzen_estimator.hpp"

using namespace volador;
using namespace volador::search;
using hparams::Leaf;
using hparams::LeafKind;

namespace {

const Leaf kReal{{"a"}, LeafKind::real, 0, 10, 10, {}};
const Leaf kInt{{"b"}, LeafKind::integer, 0, 10, 10, {}};
const Leaf kLetter{{"c"}, LeafKind::categorical, 0, 2, 10, {}};  // three choices

// Rows of one coordinate each.
std::vector<std::vector<double>> column(const std::vector<double>& values) {
  std::vector<std::vector<double>> rows;
  for (double v : values) rows.push_back({v});
  return rows;
}

}  // namespace

TEST_CASE("Parzen estimator: a real leaf, neighbour bandwidths, truncated kernels, as Optuna's", "[search][tpe]") {
  const ParzenEstimator p({&kReal}, column({1, 2, 7}), {});
  CHECK(p.log_pdf({0.5}) == Approx(-0.70506759).epsilon(1e-7));
  CHECK(p.log_pdf({2.5}) == Approx(-0.68897976).epsilon(1e-7));
  CHECK(p.log_pdf({9.0}) == Approx(-1.15793187).epsilon(1e-7));
}

TEST_CASE("Parzen estimator: an int leaf scores the mass of [x - 0.5, x + 0.5], as Optuna's", "[search][tpe]") {
  const ParzenEstimator p({&kInt}, column({1, 2, 7}), {});
  CHECK(p.log_pdf({0}) == Approx(-2.2160727).epsilon(1e-7));
  CHECK(p.log_pdf({2}) == Approx(-2.10251946).epsilon(1e-7));
  CHECK(p.log_pdf({9}) == Approx(-2.86866233).epsilon(1e-7));
}

TEST_CASE("Parzen estimator: a categorical leaf smooths each observation by the prior, as Optuna's", "[search][tpe]") {
  const ParzenEstimator p({&kLetter}, column({0, 0, 2}), {});
  CHECK(p.log_pdf({0}) == Approx(-0.74193734).epsilon(1e-7));
  CHECK(p.log_pdf({1}) == Approx(-1.65822808).epsilon(1e-7));
  CHECK(p.log_pdf({2}) == Approx(-1.09861229).epsilon(1e-7));
}

TEST_CASE("Parzen estimator: older observations weigh less beyond the 25 most recent, as Optuna's", "[search][tpe]") {
  std::vector<double> values;
  for (int i = 0; i < 30; ++i) values.push_back(10.0 * i / 29);
  const ParzenEstimator p({&kReal}, column(values), {});
  CHECK(p.log_pdf({3.3}) == Approx(-2.64632476).epsilon(1e-7));
  CHECK(p.log_pdf({9.99}) == Approx(-2.62196143).epsilon(1e-7));
  const auto w = recency_weights(30);
  CHECK(w[0] == Approx(1.0 / 30));
  CHECK(w[4] == Approx(1.0));
  CHECK(w[29] == 1.0);
}

TEST_CASE("Parzen estimator: multivariate, one joint kernel per observation with Scott's bandwidths, as Optuna's",
          "[search][tpe]") {
  const ParzenEstimator p({&kReal, &kInt, &kLetter}, {{1, 3, 0}, {2, 5, 0}, {7, 1, 2}}, {1.0, true});
  CHECK(p.log_pdf({0.5, 3, 0}) == Approx(-3.37868425).epsilon(1e-7));
  CHECK(p.log_pdf({2.5, 9, 1}) == Approx(-4.81303286).epsilon(1e-7));
}

TEST_CASE("Parzen estimator: draws stay in range, ints and categoricals whole, near the observations",
          "[search][tpe]") {
  const ParzenEstimator p({&kReal, &kInt, &kLetter}, {{1, 3, 0}, {1.2, 3, 0}, {0.8, 3, 0}}, {1.0, true});
  hparams::Rng rng(7);
  std::map<double, int> letters;
  int near = 0;
  for (int i = 0; i < 2000; ++i) {
    const auto x = p.sample(rng);
    REQUIRE(x.size() == 3);
    CHECK((x[0] >= 0 && x[0] <= 10));
    CHECK((x[1] >= 0 && x[1] <= 10 && x[1] == std::round(x[1])));
    CHECK((x[2] >= 0 && x[2] <= 2 && x[2] == std::round(x[2])));
    ++letters[x[2]];
    near += std::abs(x[0] - 1) < 3 ? 1 : 0;
  }
  CHECK(letters[0] > letters[1] + 500);  // the observed letter dominates
  CHECK(near > 1200);  // 3 of 4 components sit at 1, sigma 2
}

TEST_CASE("tpe's multivariate: one joint density keeps interacting choices together", "[search][tpe]") {
  // Good pairs at two opposite corners: drawn jointly a candidate stays at one corner; drawn one leaf at a time
  // (independent estimators) x and y come from different corners half the time.
  const Leaf x{{"x"}, LeafKind::real, 0, 1, 10, {}}, y{{"y"}, LeafKind::real, 0, 1, 10, {}};
  const std::vector<std::vector<double>> corners{{0.1, 0.1}, {0.9, 0.9}, {0.12, 0.1}, {0.9, 0.88}};
  const ParzenEstimator joint({&x, &y}, corners, {1.0, true, 0.5});
  const ParzenEstimator only_x({&x}, {{0.1}, {0.9}, {0.12}, {0.9}}, {1.0, false, 0.5});
  const ParzenEstimator only_y({&y}, {{0.1}, {0.9}, {0.1}, {0.88}}, {1.0, false, 0.5});
  hparams::Rng rng(11);
  int joint_close = 0, independent_close = 0;
  for (int i = 0; i < 1000; ++i) {
    const auto pair = joint.sample(rng);
    joint_close += std::abs(pair[0] - pair[1]) < 0.4;
    independent_close += std::abs(only_x.sample(rng)[0] - only_y.sample(rng)[0]) < 0.4;
  }
  CHECK(joint_close > 800);
  CHECK(independent_close < 650);
  // And the joint density ranks a corner above the off-diagonal corner that the independent ones rate alike.
  CHECK(joint.log_pdf({0.1, 0.1}) > joint.log_pdf({0.1, 0.9}) + 0.2);
  CHECK(only_x.log_pdf({0.1}) + only_y.log_pdf({0.9}) ==
        Approx(only_x.log_pdf({0.1}) + only_y.log_pdf({0.1})).epsilon(0.05));
}

TEST_CASE("log_gauss_mass is accurate in the centre and far in the tails", "[search][tpe]") {
  CHECK(log_gauss_mass(-1, 1) == Approx(std::log(0.6826894921370859)));
  CHECK(log_gauss_mass(-40, -39) == Approx(-765.0831566).epsilon(1e-8));  // erfc underflows here
  CHECK(log_gauss_mass(39, 40) == Approx(log_gauss_mass(-40, -39)));
  CHECK(log_gauss_mass(-1e9, 1e9) == Approx(0).margin(1e-12));
}
