#pragma once
// Hyperparameter spaces: the `hyperparameters:` section of distributed.yaml as
// typed values. Concrete values (samples, constants, categorical choices) are
// JSON values so that any YAML scalar, list or map can be a value.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace volador::hparams {

using Value = nlohmann::json;

struct ConstParam {
  Value val;
};
struct IntParam {
  std::int64_t minval = 0;
  std::int64_t maxval = 0;
  std::optional<std::uint32_t> count;  // grid points; required by grid search
};
struct DoubleParam {
  double minval = 0;
  double maxval = 0;
  std::optional<std::uint32_t> count;
};
// value = base ^ x with x in [minval, maxval].
struct LogParam {
  double base = 10;
  double minval = 0;
  double maxval = 0;
  std::optional<std::uint32_t> count;
};
struct CategoricalParam {
  std::vector<Value> vals;  // non-empty
};

struct Hyperparameter;
// A nested map of hyperparameters (name -> parameter); ordered by name.
using Space = std::map<std::string, Hyperparameter>;

struct Hyperparameter {
  std::variant<ConstParam, IntParam, DoubleParam, LogParam, CategoricalParam, Space> param;
};

// True when every leaf is a ConstParam (what the `single` searcher needs).
bool is_constant(const Space& space);

// Calls `visit(path, hp)` for each leaf of `space`, depth-first in key order:
// each hyperparameter that is not a non-empty nested space (an empty one is
// a leaf); `path` holds the keys from the top of the space to it.
using LeafVisitor = std::function<void(const std::vector<std::string>& path, const Hyperparameter& hp)>;
void for_each_leaf(const Space& space, const LeafVisitor& visit);

}  // namespace volador::hparams
