#include "runtime/trial_api/trial_registry.hpp"

#include <exception>

namespace volador::trial_api {

void TrialRegistry::add(std::string name, TrialFactory factory) {
  factories_[std::move(name)] = std::move(factory);
}

Result<std::unique_ptr<Trial>> TrialRegistry::create(const std::string& entrypoint,
                                                     const TrialContext& context) const {
  if (!entrypoint.starts_with(kNativeEntrypointPrefix))
    return fail(Error::invalid_argument("entrypoint '" + entrypoint + "' is not a native trial (native:<name>)"));
  auto name = entrypoint.substr(kNativeEntrypointPrefix.size());
  auto it = factories_.find(name);
  if (it == factories_.end()) {
    std::string known;
    for (const auto& n : names()) known += (known.empty() ? "" : ", ") + n;
    return fail(Error::not_found("no native trial named '" + name + "' in this worker (known: " + known + ")"));
  }
  try {
    return it->second(context);
  } catch (const std::exception& e) {
    return fail(Error::invalid_argument("creating native trial '" + name + "' raised: " + e.what()));
  }
}

std::vector<std::string> TrialRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& [name, factory] : factories_) out.push_back(name);
  return out;
}

}  // namespace volador::trial_api
