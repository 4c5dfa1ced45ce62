#include "runtime/search/model_suggester.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "runtime/search/state_codec.hpp"

namespace volador::search {

ModelSuggester::ModelSuggester(const hparams::Space& space, std::uint32_t seed, std::uint32_t n_startup)
    : space_(space), rng_(seed), n_startup_(n_startup) {}

std::vector<double> ModelSuggester::snap(std::vector<double> coords) const {
  for (std::size_t i = 0; i < coords.size(); ++i) {
    const auto& leaf = space_.leaves()[i];
    coords[i] = std::clamp(coords[i], leaf.lo, leaf.hi);
    if (leaf.kind == hparams::LeafKind::integer || leaf.kind == hparams::LeafKind::categorical)
      coords[i] = std::round(coords[i]);
  }
  return coords;
}

ModelSuggester::History ModelSuggester::history() const {
  History h;
  double worst_finished = -std::numeric_limits<double>::infinity();
  double worst_finite = -std::numeric_limits<double>::infinity();
  for (const auto& [id, t] : trials_) {
    if (t.state == State::finished && std::isfinite(t.loss)) worst_finished = std::max(worst_finished, t.loss);
    if (t.state != State::pending && std::isfinite(t.loss)) worst_finite = std::max(worst_finite, t.loss);
  }
  for (const auto& [id, t] : trials_) {
    if (t.state == State::pending) {
      h.pending.push_back(t.coords);
      continue;
    }
    double loss = std::isfinite(t.loss) ? t.loss : worst_finite;
    if (t.state == State::stopped) loss = std::max(loss, worst_finished);
    h.coords.push_back(t.coords);
    h.losses.push_back(std::isfinite(loss) ? loss : 0.0);
  }
  return h;
}

nlohmann::json ModelSuggester::suggest(RequestId id) {
  History h = history();
  std::vector<double> coords =
      h.losses.size() < n_startup_ ? space_.sample(rng_) : snap(propose(h));
  nlohmann::json hparams = space_.decode(coords);
  trials_[id] = {std::move(coords), State::pending, 0};
  return hparams;
}

void ModelSuggester::observe(RequestId id, const Outcome& outcome) {
  const auto it = trials_.find(id);
  if (it == trials_.end()) return;
  if (outcome.ending == Ending::failed || outcome.ending == Ending::invalid) {
    trials_.erase(it);
    return;
  }
  it->second.state = outcome.ending == Ending::finished ? State::finished : State::stopped;
  it->second.loss = outcome.loss;
}

nlohmann::json ModelSuggester::save() const {
  nlohmann::json trials = nlohmann::json::array();
  for (const auto& [id, t] : trials_) trials.push_back({id, t.coords, static_cast<int>(t.state), number_to_json(t.loss)});
  return {{"rng", hparams::rng_to_text(rng_)}, {"trials", trials}, {"model", save_model()}};
}

Status ModelSuggester::load(const nlohmann::json& state) {
  std::map<RequestId, Trial> trials;
  try {
    for (const auto& t : state.at("trials")) {
      const int s = t.at(2).get<int>();
      auto coords = t.at(1).get<std::vector<double>>();
      if (s < 0 || s > 2 || coords.size() != space_.leaves().size())
        return fail(Error::corruption("suggester state has a malformed trial: " + t.dump()));
      trials[t.at(0).get<RequestId>()] = {std::move(coords), static_cast<State>(s), number_from_json(t.at(3))};
    }
    auto rng = hparams::rng_from_text(state.at("rng").get<std::string>());
    if (!rng) return fail(rng.error());
    if (auto status = load_model(state.at("model")); !status) return status;
    rng_ = *rng;
  } catch (const nlohmann::json::exception& e) {
    return fail(Error::corruption(std::string("suggester state does not decode: ") + e.what()));
  }
  trials_ = std::move(trials);
  return {};
}

}  // namespace volador::search
