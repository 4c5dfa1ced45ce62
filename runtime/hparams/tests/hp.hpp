#pragma once
// Test support: hp(param) makes a Hyperparameter of any parameter kind, so a
// test's search space reads as a table ({"lr", hp(LogParam{10, -4, -1, {}})}).

#include <utility>

#include "runtime/hparams/space.hpp"

namespace volador::hparams::testing {

inline Hyperparameter hp(auto param) { return Hyperparameter{std::move(param)}; }

}  // namespace volador::hparams::testing
