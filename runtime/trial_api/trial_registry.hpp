#pragma once
// Native trials built into the worker, found by the entrypoint
// `native:<name>` of distributed.yaml.

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/core/error.hpp"
#include "runtime/trial_api/trial.hpp"

namespace volador::trial_api {

using TrialFactory = std::function<Result<std::unique_ptr<Trial>>(const TrialContext&)>;

inline constexpr std::string_view kNativeEntrypointPrefix = "native:";

class TrialRegistry {
 public:
  // Registers `factory` under `name`; a second registration of a name replaces the first.
  void add(std::string name, TrialFactory factory);
  // The trial named by an entrypoint "native:<name>". Errors: invalid_argument
  // when the entrypoint is not native or the factory throws (its message
  // kept), not_found listing the known names.
  [[nodiscard]] Result<std::unique_ptr<Trial>> create(const std::string& entrypoint,
                                                      const TrialContext& context) const;
  [[nodiscard]] std::vector<std::string> names() const;

 private:
  std::map<std::string, TrialFactory> factories_;
};

}  // namespace volador::trial_api
