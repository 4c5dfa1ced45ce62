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
    alive_.insert(id);
    ops.emplace_back(make(id));
  }
  return ops;
}

bool TrialBook::finish(RequestId id, bool errored) {
  if (alive_.erase(id) == 0) return false;
  if (errored) ++errored_;
  return true;
}

void TrialBook::add_to_budget() { ++budget_; }

std::optional<Shutdown> TrialBook::take_shutdown() {
  if (shut_down_ || created_ < budget_ || !alive_.empty()) return std::nullopt;
  shut_down_ = true;
  return Shutdown{.failure = created_ > 0 && errored_ == created_};
}

double TrialBook::progress() const {
  if (budget_ == 0) return 1.0;
  return static_cast<double>(created_ - alive_.size()) / static_cast<double>(budget_);
}

nlohmann::json TrialBook::save() const {
  return {{"budget", budget_}, {"created", created_}, {"errored", errored_},
          {"alive", alive_}, {"shut_down", shut_down_}};
}

Status TrialBook::load(const nlohmann::json& state) {
  try {
    auto budget = state.at("budget").get<std::uint64_t>();
    auto created = state.at("created").get<std::uint64_t>();
    auto errored = state.at("errored").get<std::uint64_t>();
    auto alive = state.at("alive").get<std::set<RequestId>>();
    const auto shut_down = state.at("shut_down").get<bool>();
    const bool consistent = created <= budget && errored <= created && alive.size() <= created &&
                            (alive.empty() || (*alive.begin() >= 1 && *alive.rbegin() <= created));
    if (!consistent) return fail(Error::corruption("searcher trial book is inconsistent: " + state.dump()));
    budget_ = budget;
    created_ = created;
    errored_ = errored;
    alive_ = std::move(alive);
    shut_down_ = shut_down;
  } catch (const nlohmann::json::exception& e) {
    return fail(Error::corruption(std::string("searcher trial book does not decode: ") + e.what()));
  }
  return {};
}

}  // namespace volador::search
