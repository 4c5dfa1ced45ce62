#include "runtime/search/trial_book.hpp"

namespace volador::search {

TrialBook::TrialBook(std::uint64_t budget, std::uint32_t max_concurrent)
    : budget_(budget), max_concurrent_(max_concurrent) {}

bool TrialBook::may_create() const {
  return created_ < budget_ && (max_concurrent_ == 0 || alive_.size() < max_concurrent_);
}

Operations TrialBook::create_trials(const std::function<CreateTrial(RequestId)>& make) {
  Operations ops;
  while (may_create()) {
    const RequestId id = ++created_;
    alive_[id] = {};
    ops.emplace_back(make(id));
  }
  return ops;
}

ValidateAfter TrialBook::train(RequestId id, std::uint64_t batches) {
  alive_.at(id).target = batches;
  return {id, batches};
}

CloseTrial TrialBook::close(RequestId id, bool stopped_early) {
  alive_.at(id).closing = true;
  return {id, stopped_early};
}

bool TrialBook::finish(RequestId id, bool errored) {
  if (alive_.erase(id) == 0) return false;
  if (errored) ++errored_;
  return true;
}

void TrialBook::add_to_budget() { ++budget_; }

void TrialBook::stop_creating(bool failure) {
  budget_ = created_;
  gave_up_ = gave_up_ || failure;
}

std::optional<Shutdown> TrialBook::take_shutdown() {
  if (shut_down_ || created_ < budget_ || !alive_.empty()) return std::nullopt;
  shut_down_ = true;
  return Shutdown{.failure = gave_up_ || (created_ > 0 && errored_ == created_)};
}

bool TrialBook::is_open(RequestId id) const {
  const auto it = alive_.find(id);
  return it != alive_.end() && !it->second.closing;
}

std::uint64_t TrialBook::target(RequestId id) const {
  const auto it = alive_.find(id);
  return it == alive_.end() ? 0 : it->second.target;
}

std::vector<RequestId> TrialBook::open_trials() const {
  std::vector<RequestId> ids;
  for (const auto& [id, alive] : alive_)
    if (!alive.closing) ids.push_back(id);
  return ids;
}

double TrialBook::progress() const {
  if (budget_ == 0) return 1.0;
  return static_cast<double>(created_ - alive_.size()) / static_cast<double>(budget_);
}

nlohmann::json TrialBook::save() const {
  nlohmann::json alive = nlohmann::json::array();
  for (const auto& [id, a] : alive_) alive.push_back({id, a.target, a.closing});
  return {{"budget", budget_}, {"created", created_},   {"errored", errored_},
          {"alive", alive},    {"gave_up", gave_up_},   {"shut_down", shut_down_}};
}

Status TrialBook::load(const nlohmann::json& state) {
  try {
    auto budget = state.at("budget").get<std::uint64_t>();
    auto created = state.at("created").get<std::uint64_t>();
    auto errored = state.at("errored").get<std::uint64_t>();
    std::map<RequestId, Alive> alive;
    for (const auto& a : state.at("alive")) alive[a.at(0).get<RequestId>()] = {a.at(1).get<std::uint64_t>(), a.at(2).get<bool>()};
    const auto gave_up = state.at("gave_up").get<bool>();
    const auto shut_down = state.at("shut_down").get<bool>();
    const bool consistent = created <= budget && errored <= created && alive.size() <= created &&
                            (alive.empty() || (alive.begin()->first >= 1 && alive.rbegin()->first <= created));
    if (!consistent) return fail(Error::corruption("searcher trial book is inconsistent: " + state.dump()));
    budget_ = budget;
    created_ = created;
    errored_ = errored;
    alive_ = std::move(alive);
    gave_up_ = gave_up;
    shut_down_ = shut_down;
  } catch (const nlohmann::json::exception& e) {
    return fail(Error::corruption(std::string("searcher trial book does not decode: ") + e.what()));
  }
  return {};
}

}  // namespace volador::search
