#include "runtime/search/basic_suggesters.hpp"

namespace volador::search {

Status RandomSuggester::load(const nlohmann::json& state) {
  if (!state.is_object() || !state.contains("rng") || !state.at("rng").is_string())
    return fail(Error::corruption("random suggester state does not decode"));
  auto rng = hparams::rng_from_text(state.at("rng").get<std::string>());
  if (!rng) return fail(rng.error());
  rng_ = *rng;
  return {};
}

}  // namespace volador::search
