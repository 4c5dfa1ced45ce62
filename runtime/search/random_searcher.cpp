#include "runtime/search/random_searcher.hpp"

#include <sstream>
#include <utility>

namespace volador::search {

RandomSearcher::RandomSearcher(const FixedLengthSettings& settings, hparams::Space space, std::uint32_t max_trials)
    : FixedLengthSearcher("random", max_trials, settings), space_(std::move(space)), rng_(settings.experiment_seed) {}

nlohmann::json RandomSearcher::next_hparams(RequestId) { return hparams::sample(space_, rng_); }

bool RandomSearcher::replaces(ExitReason reason) const { return reason == ExitReason::invalid_hparams; }

nlohmann::json RandomSearcher::save_generator() const {
  std::ostringstream out;
  out << rng_;
  return {{"rng", out.str()}};
}

Status RandomSearcher::load_generator(const nlohmann::json& state) {
  std::istringstream in(state.at("rng").get<std::string>());
  hparams::Rng rng;
  if (!(in >> rng)) return fail(Error::corruption("random searcher RNG state does not decode"));
  rng_ = rng;
  return {};
}

}  // namespace volador::search
