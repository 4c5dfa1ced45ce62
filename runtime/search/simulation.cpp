#include "runtime/search/simulation.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <string>

namespace volador::search {
namespace {

// Acts on one operation; more operations go to the back of `queue`.
class Runner {
 public:
  Runner(Searcher& searcher, const MetricFunction& metric, const CreationHook& on_created)
      : searcher_(searcher), metric_(metric), on_created_(on_created) {}

  Result<Simulation> run(std::uint64_t max_operations) {
    take(searcher_.initial_operations());
    for (std::uint64_t n = 0; !queue_.empty(); ++n) {
      if (n >= max_operations) return fail(Error::internal("the search did not end within the operation limit"));
      const Operation op = std::move(queue_.front());
      queue_.pop_front();
      if (auto status = std::visit([this](const auto& o) { return act(o); }, op); !status) return fail(status.error());
      if (done_) break;
    }
    if (!done_) return fail(Error::internal("the searcher stopped issuing operations before Shutdown"));
    for (auto& [id, trial] : trials_) {
      result_.total_batches += trial.batches - std::min(trial.start_batches, trial.batches);
      result_.trials.push_back(std::move(trial));
    }
    return std::move(result_);
  }

 private:
  void take(Operations ops) {
    for (auto& op : ops) queue_.push_back(std::move(op));
  }
  Result<SimulatedTrial*> find(RequestId id) {
    const auto it = trials_.find(id);
    if (it == trials_.end()) return fail(Error::internal("operation for unknown trial " + std::to_string(id)));
    return &it->second;
  }
  Status act(const CreateTrial& c) {
    std::uint64_t start = 0;
    if (c.warm_start_from) {
      auto parent = find(*c.warm_start_from);
      if (!parent) return fail(parent.error());
      start = (*parent)->batches;
    }
    const auto& trial = trials_[c.request_id] = {c.request_id, c.hparams, start, 0, false, c.warm_start_from, start};
    if (on_created_) on_created_(trial);
    result_.max_alive = std::max(result_.max_alive, ++alive_);
    take(searcher_.on_trial_created(c.request_id));
    return {};
  }
  Status act(const ValidateAfter& v) {
    auto trial = find(v.request_id);
    if (!trial) return fail(trial.error());
    (*trial)->batches = std::max((*trial)->batches, v.batches);
    (*trial)->metric = metric_((*trial)->hparams, v.request_id, v.batches);
    take(searcher_.on_validation_completed(v.request_id, (*trial)->metric, v.batches));
    return {};
  }
  Status act(const CloseTrial& c) {
    auto trial = find(c.request_id);
    if (!trial) return fail(trial.error());
    (*trial)->stopped_early = c.stopped_early;
    --alive_;
    take(searcher_.on_trial_closed(c.request_id));
    return {};
  }
  Status act(const Shutdown& s) {
    result_.failure = s.failure;
    done_ = true;
    return {};
  }

  Searcher& searcher_;
  const MetricFunction& metric_;
  const CreationHook& on_created_;
  std::deque<Operation> queue_;
  std::map<RequestId, SimulatedTrial> trials_;
  std::uint32_t alive_ = 0;
  Simulation result_;
  bool done_ = false;
};

}  // namespace

Result<Simulation> simulate(Searcher& searcher, const MetricFunction& metric, std::uint64_t max_operations) {
  return simulate(searcher, metric, CreationHook{}, max_operations);
}

Result<Simulation> simulate(Searcher& searcher, const MetricFunction& metric, const CreationHook& on_created,
                            std::uint64_t max_operations) {
  return Runner(searcher, metric, on_created).run(max_operations);
}

}  // namespace volador::search
