#include "runtime/search/adaptive_asha.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>

#include "runtime/search/state_codec.hpp"

namespace volador::search {
namespace {

// 1 + the largest k with d^k <= n (n >= 1).
std::uint32_t levels(std::uint64_t n, std::uint64_t d) {
  std::uint32_t k = 1;
  for (std::uint64_t power = d; power <= n; power *= d) {
    ++k;
    if (power > std::numeric_limits<std::uint64_t>::max() / d) break;
  }
  return k;
}

Result<std::vector<std::uint32_t>> bracket_rungs(const std::string& mode, std::uint32_t r) {
  std::vector<std::uint32_t> rungs;
  if (mode == "aggressive") return std::vector<std::uint32_t>{r};
  std::uint32_t lowest = 1;
  if (mode == "standard") lowest = (r - 1) / 2 + 1;
  else if (mode != "conservative") return fail(Error::invalid_argument("unknown adaptive_asha mode " + mode));
  for (std::uint32_t n = r; n >= lowest; --n) rungs.push_back(n);
  return rungs;
}

std::vector<std::uint64_t> rung_lengths(std::uint32_t rungs, std::uint64_t divisor, std::uint64_t max_length) {
  std::vector<std::uint64_t> lengths(rungs);
  std::uint64_t down = 1;  // divisor^(rungs-1-k), from the top rung down
  for (std::uint32_t k = rungs; k-- > 0; down *= divisor) lengths[k] = std::max<std::uint64_t>(max_length / down, 1);
  return lengths;
}

// Trials per bracket: proportional to d^(r-1)/r, at least 1 each, summing to `total`.
std::vector<std::uint64_t> split_trials(const std::vector<std::uint32_t>& rungs, double divisor, std::uint64_t total) {
  std::vector<double> weights;
  for (std::uint32_t r : rungs) weights.push_back(std::pow(divisor, r - 1) / r);
  const double sum = std::accumulate(weights.begin(), weights.end(), 0.0);
  std::vector<std::uint64_t> trials;
  for (double w : weights)
    trials.push_back(std::max<std::uint64_t>(static_cast<std::uint64_t>(w / sum * static_cast<double>(total)), 1));
  std::uint64_t allocated = std::accumulate(trials.begin(), trials.end(), std::uint64_t{0});
  if (allocated < total) trials.front() += total - allocated;
  for (; allocated > total; --allocated) --*std::ranges::max_element(trials);
  return trials;
}

}  // namespace

Result<AshaPlan> plan_asha(const AshaSettings& s) {
  if (s.divisor < 2 || s.max_rungs == 0 || s.max_length_batches == 0 || s.max_trials == 0)
    return fail(Error::invalid_argument("adaptive_asha needs divisor >= 2 and max_rungs, max_length, max_trials > 0"));
  const std::uint32_t r =
      std::min({s.max_rungs, levels(s.max_length_batches, s.divisor), levels(s.max_trials, s.divisor)});
  auto rungs = bracket_rungs(s.mode, r);
  if (!rungs) return fail(rungs.error());
  const auto trials = split_trials(*rungs, s.divisor, s.max_trials);
  AshaPlan plan;
  for (std::size_t i = 0; i < rungs->size(); ++i)
    plan.brackets.push_back({rung_lengths((*rungs)[i], s.divisor, s.max_length_batches), trials[i]});
  const std::uint64_t fallback =
      plan.brackets.size() * std::max<std::uint64_t>(plan.brackets.back().trials, s.divisor);
  plan.max_concurrent_trials = s.max_concurrent_trials != 0
                                   ? s.max_concurrent_trials
                                   : static_cast<std::uint32_t>(std::min<std::uint64_t>(fallback, s.max_trials));
  return plan;
}

AdaptiveAshaSearcher::AdaptiveAshaSearcher(BaseSettings base, AshaPlan plan, std::uint32_t divisor,
                                           hparams::Space space)
    : SearcherBase("adaptive_asha",
                   [&] {
                     base.trials = 0;
                     for (const auto& b : plan.brackets) base.trials += b.trials;
                     base.max_concurrent_trials = plan.max_concurrent_trials;
                     return base;
                   }()),
      plan_(std::move(plan)),
      divisor_(divisor),
      space_(std::move(space)),
      rng_(base.experiment_seed) {
  for (const auto& b : plan_.brackets) brackets_.push_back({std::vector<std::vector<Ranked>>(b.rungs.size()), b.trials});
}

std::uint32_t AdaptiveAshaSearcher::pick_bracket() const {
  std::uint32_t pick = 0;
  bool found = false;
  for (std::uint32_t i = 0; i < brackets_.size(); ++i) {
    const Bracket& b = brackets_[i];
    if (b.created >= b.trials) continue;
    if (!found || b.alive < brackets_[pick].alive) pick = i;
    found = true;
  }
  return pick;
}

nlohmann::json AdaptiveAshaSearcher::next_hparams(RequestId id) {
  const std::uint32_t bracket = pick_bracket();
  ++brackets_[bracket].created;
  ++brackets_[bracket].alive;
  places_[id] = {bracket, 0, !std::exchange(reference_created_, true)};
  return hparams::sample(space_, rng_);
}

std::uint64_t AdaptiveAshaSearcher::first_target(RequestId id) {
  return plan_.brackets[places_.at(id).bracket].rungs.front();
}

std::size_t AdaptiveAshaSearcher::record(std::vector<Ranked>& rung, double loss, RequestId id) {
  const auto at = std::ranges::lower_bound(rung, loss, std::less<>{}, &Ranked::loss);
  const auto rank = static_cast<std::size_t>(at - rung.begin());
  rung.insert(at, {loss, id});
  return rank;
}

SearcherBase::Verdict AdaptiveAshaSearcher::judge(RequestId id, double loss, std::uint64_t batches) {
  Place& place = places_.at(id);
  const auto& lengths = plan_.brackets[place.bracket].rungs;
  auto& rungs = brackets_[place.bracket].rungs;
  if (place.reference) {
    while (place.rung + 1 < lengths.size() && batches >= lengths[place.rung]) ++place.rung;
    if (batches < lengths[place.rung]) return {Verdict::Kind::train, lengths[place.rung]};
    return {Verdict::Kind::finish};
  }
  for (; place.rung < lengths.size(); ++place.rung) {
    if (batches < lengths[place.rung]) return {Verdict::Kind::train, lengths[place.rung]};
    auto& rung = rungs[place.rung];
    const std::size_t rank = record(rung, loss, id);
    if (place.rung + 1 == lengths.size()) return {Verdict::Kind::finish};
    if (rank >= std::max<std::size_t>(rung.size() / divisor_, 1)) return {Verdict::Kind::stop};
  }
  return {Verdict::Kind::finish};
}

void AdaptiveAshaSearcher::trial_ended(RequestId id, Ending ending) {
  const auto it = places_.find(id);
  if (it == places_.end()) return;
  const Place place = it->second;
  places_.erase(it);
  Bracket& bracket = brackets_[place.bracket];
  --bracket.alive;
  if (place.reference && ending == Ending::invalid) reference_created_ = false;
  if (ending == Ending::failed && !place.reference && place.rung < bracket.rungs.size())
    record(bracket.rungs[place.rung], std::numeric_limits<double>::infinity(), id);
  if (ending != Ending::invalid) return;
  for (auto& rung : bracket.rungs) std::erase_if(rung, [id](const Ranked& r) { return r.id == id; });
  ++bracket.trials;
}

nlohmann::json AdaptiveAshaSearcher::save_method() const {
  nlohmann::json brackets = nlohmann::json::array();
  for (const auto& b : brackets_) {
    nlohmann::json rungs = nlohmann::json::array();
    for (const auto& rung : b.rungs) {
      nlohmann::json entries = nlohmann::json::array();
      for (const auto& r : rung) entries.push_back({number_to_json(r.loss), r.id});
      rungs.push_back(std::move(entries));
    }
    brackets.push_back({{"trials", b.trials}, {"created", b.created}, {"alive", b.alive}, {"rungs", rungs}});
  }
  nlohmann::json places = nlohmann::json::array();
  for (const auto& [id, p] : places_) places.push_back({id, p.bracket, p.rung, p.reference});
  return {{"rng", hparams::rng_to_text(rng_)},
          {"brackets", brackets},
          {"places", places},
          {"reference_created", reference_created_}};
}

Status AdaptiveAshaSearcher::load_method(const nlohmann::json& state) {
  std::vector<Bracket> brackets;
  std::map<RequestId, Place> places;
  try {
    for (const auto& b : state.at("brackets")) {
      Bracket bracket{{}, b.at("trials").get<std::uint64_t>(), b.at("created").get<std::uint64_t>(),
                      b.at("alive").get<std::uint32_t>()};
      for (const auto& rung : b.at("rungs")) {
        auto& ranked = bracket.rungs.emplace_back();
        for (const auto& e : rung) ranked.push_back({number_from_json(e.at(0)), e.at(1).get<RequestId>()});
      }
      brackets.push_back(std::move(bracket));
    }
    for (const auto& p : state.at("places"))
      places[p.at(0).get<RequestId>()] = {p.at(1).get<std::uint32_t>(), p.at(2).get<std::uint32_t>(),
                                          p.size() > 3 && p.at(3).get<bool>()};
    auto rng = hparams::rng_from_text(state.at("rng").get<std::string>());
    if (!rng) return fail(rng.error());
    bool consistent = brackets.size() == plan_.brackets.size();
    for (std::size_t i = 0; consistent && i < brackets.size(); ++i)
      consistent = brackets[i].rungs.size() == plan_.brackets[i].rungs.size();
    for (const auto& [id, p] : places)
      consistent = consistent && p.bracket < brackets.size() && p.rung < brackets[p.bracket].rungs.size();
    if (!consistent) return fail(Error::corruption("adaptive_asha state does not match the config's brackets"));
    rng_ = *rng;
    // A state saved before reference trials existed continues without one.
    reference_created_ = state.value("reference_created", true);
  } catch (const nlohmann::json::exception& e) {
    return fail(Error::corruption(std::string("adaptive_asha state does not decode: ") + e.what()));
  }
  brackets_ = std::move(brackets);
  places_ = std::move(places);
  return {};
}

}  // namespace volador::search
