#include "runtime/search/pbt.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <string>
#include <tuple>
#include <utility>

#include "runtime/search/outcome.hpp"
#include "runtime/search/state_codec.hpp"
#include "runtime/training/lengths.hpp"

namespace volador::search {
namespace {

constexpr double kWorst = std::numeric_limits<double>::infinity();

Status check_settings(const config::PbtSettings& pbt) {
  if (pbt.population_size == 0 || pbt.num_rounds == 0)
    return fail(Error::invalid_argument("pbt needs population_size and num_rounds > 0"));
  if (!(pbt.truncate_fraction > 0 && pbt.truncate_fraction <= 0.5))
    return fail(Error::invalid_argument("pbt needs replace_function.truncate_fraction in (0, 0.5]"));
  if (std::floor(pbt.truncate_fraction * pbt.population_size) < 1)
    return fail(Error::invalid_argument("pbt's truncate_fraction x population_size replaces no trial"));
  const auto unit = [](double x) { return x >= 0 && x <= 1; };
  if (!unit(pbt.resample_probability) || !unit(pbt.perturb_factor))
    return fail(Error::invalid_argument("pbt needs explore_function.resample_probability and perturb_factor in [0, 1]"));
  if (pbt.num_rounds > 1 && pbt.length_per_round.value > std::numeric_limits<std::uint64_t>::max() / pbt.num_rounds)
    return fail(Error::invalid_argument("pbt's num_rounds x length_per_round is too long"));
  return {};
}

}  // namespace

Result<PbtPlan> plan_pbt(const config::ExperimentConfig& config) {
  const auto& pbt = config.searcher.pbt;
  if (auto checked = check_settings(pbt); !checked) return fail(checked.error());
  if (auto total = max_length_in_batches(config); !total) return fail(total.error());
  PbtPlan plan{.population_size = pbt.population_size,
               .round_ends = {},
               .replaced = static_cast<std::uint32_t>(std::floor(pbt.truncate_fraction * pbt.population_size)),
               .explore = {pbt.resample_probability, pbt.perturb_factor},
               .smaller_is_better = config.searcher.smaller_is_better};
  for (std::uint64_t round = 1; round <= pbt.num_rounds; ++round) {
    const config::Length end{pbt.length_per_round.unit, pbt.length_per_round.value * round};
    const auto batches = training::to_batches(end, config.global_batch_size, config.records_per_epoch);
    if (!plan.round_ends.empty() && batches <= plan.round_ends.back())
      return fail(Error::invalid_argument("pbt's length_per_round is shorter than one batch"));
    plan.round_ends.push_back(batches);
  }
  return plan;
}

PbtSearcher::PbtSearcher(PbtPlan plan, hparams::Space space, std::uint32_t experiment_seed)
    : plan_(std::move(plan)),
      space_(std::move(space)),
      experiment_seed_(experiment_seed),
      rng_(experiment_seed),
      book_(plan_.population_size, 0) {}

Operations PbtSearcher::initial_operations() {
  return book_.create_trials([this](RequestId id) {
    const Member& member = members_[id] = Member{hparams::sample(space_, rng_), std::nullopt, false};
    return CreateTrial{id, member.hparams, hparams::trial_seed(experiment_seed_, id), std::nullopt};
  });
}

Operations PbtSearcher::on_trial_created(RequestId id) {
  if (!book_.is_open(id)) return {};
  return {book_.train(id, plan_.round_ends[round_])};
}

Operations PbtSearcher::on_validation_completed(RequestId id, double metric, std::uint64_t batches) {
  if (!book_.is_open(id) || batches < book_.target(id)) return {};
  auto member = members_.find(id);
  if (member == members_.end() || member->second.loss) return {};
  member->second.loss = to_loss(metric, plan_.smaller_is_better);
  if (last_round()) return {book_.close(id, false)};
  return end_round_if_reported();
}

Operations PbtSearcher::on_trial_closed(RequestId id) {
  const bool open = book_.is_open(id);
  if (!book_.finish(id, false)) return {};
  return finish_if_done(open ? lose(id) : Operations{});
}

Operations PbtSearcher::on_trial_exited_early(RequestId id, ExitReason reason) {
  const bool open = book_.is_open(id);
  if (!book_.finish(id, reason == ExitReason::errored)) return {};
  return finish_if_done(open ? lose(id) : Operations{});
}

Operations PbtSearcher::lose(RequestId id) {
  auto member = members_.find(id);
  if (member == members_.end()) return {};
  member->second.failed = true;
  member->second.loss = kWorst;
  if (std::ranges::all_of(members_, [](const auto& m) { return m.second.failed; })) {
    book_.stop_creating(true);  // nobody left to train on or to copy from
    return {};
  }
  return end_round_if_reported();
}

std::vector<RequestId> PbtSearcher::ranked() const {
  std::vector<RequestId> ids;
  for (const auto& [id, member] : members_) ids.push_back(id);
  std::ranges::sort(ids, [this](RequestId a, RequestId b) {
    const Member& x = members_.at(a);
    const Member& y = members_.at(b);
    return std::tuple(x.failed, *x.loss, a) < std::tuple(y.failed, *y.loss, b);
  });
  return ids;
}

Operations PbtSearcher::end_round_if_reported() {
  if (last_round() || !std::ranges::all_of(members_, [](const auto& m) { return m.second.loss.has_value(); }))
    return {};
  const auto order = ranked();
  std::vector<Child> children;
  for (std::size_t i = 0; i < plan_.replaced; ++i) {
    const RequestId parent = members_.at(order[i]).failed ? order.front() : order[i];
    children.push_back({parent, explore(space_, members_.at(parent).hparams, plan_.explore, rng_)});
  }
  Operations ops;
  for (std::size_t i = 0; i < plan_.replaced; ++i) {
    const RequestId worst = order[order.size() - 1 - i];
    if (book_.is_open(worst)) ops.emplace_back(book_.close(worst, true));
    members_.erase(worst);
  }
  ++round_;
  // New trials first: each takes its parent's checkpoint while the parent still stands at it.
  for (auto& op : create(std::move(children))) ops.push_back(std::move(op));
  for (auto& [id, member] : members_) {
    if (member.failed || !member.loss) continue;  // failed: stays the worst; no loss: a trial just created
    member.loss.reset();
    ops.emplace_back(book_.train(id, plan_.round_ends[round_]));
  }
  return ops;
}

Operations PbtSearcher::create(std::vector<Child> children) {
  std::deque<Child> queue(std::make_move_iterator(children.begin()), std::make_move_iterator(children.end()));
  for (std::size_t i = 0; i < queue.size(); ++i) book_.add_to_budget();
  return book_.create_trials([&](RequestId id) {
    Child child = std::move(queue.front());
    queue.pop_front();
    members_[id] = Member{child.hparams, std::nullopt, false};
    return CreateTrial{id, std::move(child.hparams), hparams::trial_seed(experiment_seed_, id), child.parent};
  });
}

Operations PbtSearcher::finish_if_done(Operations ops) {
  if (auto shutdown = book_.take_shutdown()) {
    ops.emplace_back(*shutdown);
    ended_ = true;
  }
  return ops;
}

double PbtSearcher::progress() const {
  if (ended_) return 1.0;
  const auto reported = std::ranges::count_if(members_, [](const auto& m) { return m.second.loss.has_value(); });
  const double in_round = members_.empty() ? 0.0 : static_cast<double>(reported) / static_cast<double>(members_.size());
  return (round_ + in_round) / static_cast<double>(plan_.round_ends.size());
}

nlohmann::json PbtSearcher::save_state() const {
  nlohmann::json members = nlohmann::json::array();
  for (const auto& [id, m] : members_)
    members.push_back({id, m.hparams, m.loss ? number_to_json(*m.loss) : nlohmann::json(nullptr), m.failed});
  return {{"kind", "pbt"},     {"book", book_.save()}, {"rng", hparams::rng_to_text(rng_)},
          {"round", round_},  {"ended", ended_},      {"members", members}};
}

Status PbtSearcher::load_state(const nlohmann::json& state) {
  try {
    if (state.at("kind") != "pbt")
      return fail(Error::corruption("saved state of a " + state.at("kind").dump() + " searcher given to pbt"));
    TrialBook book = book_;
    if (auto loaded = book.load(state.at("book")); !loaded) return loaded;
    auto rng = hparams::rng_from_text(state.at("rng").get<std::string>());
    if (!rng) return fail(rng.error());
    const auto round = state.at("round").get<std::uint32_t>();
    std::map<RequestId, Member> members;
    for (const auto& m : state.at("members")) {
      std::optional<double> loss;
      if (!m.at(2).is_null()) loss = number_from_json(m.at(2));
      members[m.at(0).get<RequestId>()] = {m.at(1), loss, m.at(3).get<bool>()};
    }
    if (round >= plan_.round_ends.size() || members.size() > plan_.population_size)
      return fail(Error::corruption("pbt state does not match the config's rounds and population: " + state.dump()));
    book_ = std::move(book);
    rng_ = *rng;
    round_ = round;
    ended_ = state.at("ended").get<bool>();
    members_ = std::move(members);
  } catch (const nlohmann::json::exception& e) {
    return fail(Error::corruption(std::string("pbt state does not decode: ") + e.what()));
  }
  return {};
}

}  // namespace volador::search
