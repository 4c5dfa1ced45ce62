#include "runtime/search/searcher_base.hpp"

#include <utility>

#include "runtime/hparams/sampling.hpp"

namespace volador::search {

SearcherBase::SearcherBase(std::string kind, const BaseSettings& settings)
    : kind_(std::move(kind)), settings_(settings), book_(settings.trials, settings.max_concurrent_trials) {}

Operations SearcherBase::advance() {
  Operations ops = book_.create_trials([this](RequestId id) {
    return CreateTrial{id, next_hparams(id), hparams::trial_seed(settings_.experiment_seed, id)};
  });
  if (auto shutdown = book_.take_shutdown()) ops.emplace_back(*shutdown);
  return ops;
}

Operations SearcherBase::end_search(bool failure) {
  book_.stop_creating(failure);
  Operations ops;
  for (RequestId id : book_.open_trials()) {
    trial_ended(id, Ending::stopped);
    ops.emplace_back(book_.close(id, true));
  }
  if (auto shutdown = book_.take_shutdown()) ops.emplace_back(*shutdown);
  return ops;
}

Operations SearcherBase::initial_operations() { return advance(); }

Operations SearcherBase::on_trial_created(RequestId id) {
  if (!book_.is_open(id)) return {};
  return {book_.train(id, first_target(id))};
}

Operations SearcherBase::on_validation_completed(RequestId id, double metric, std::uint64_t batches) {
  if (!book_.is_open(id)) return {};
  note_best(id, metric);
  if (reached_goal(metric)) return end_search(false);
  if (batches < book_.target(id)) return {};
  const Verdict verdict = judge(id, to_loss(metric, settings_.smaller_is_better), batches);
  if (verdict.kind == Verdict::Kind::train) return {book_.train(id, verdict.batches)};
  const bool stopped = verdict.kind == Verdict::Kind::stop;
  trial_ended(id, stopped ? Ending::stopped : Ending::finished);
  return {book_.close(id, stopped)};
}

Operations SearcherBase::on_trial_closed(RequestId id) {
  const bool open = book_.is_open(id);
  if (!book_.finish(id, false)) return {};
  if (open) trial_ended(id, Ending::stopped);  // closed without being asked to
  return advance();
}

Operations SearcherBase::on_trial_exited_early(RequestId id, ExitReason reason) {
  const bool open = book_.is_open(id);
  if (!book_.finish(id, reason == ExitReason::errored)) return {};
  if (open) {  // otherwise it was being closed: the search is already done with it
    trial_ended(id, reason == ExitReason::invalid_hparams ? Ending::invalid : Ending::failed);
    if (replaces(reason)) book_.add_to_budget();
  }
  const auto max_failed = settings_.limits.max_failed_trials;
  if (max_failed && book_.errored() >= *max_failed) return end_search(true);
  return advance();
}

void SearcherBase::note_best(RequestId id, double metric) {
  if (!std::isfinite(metric)) return;
  const bool better = !best_ || to_loss(metric, settings_.smaller_is_better) <
                                    to_loss(best_->metric, settings_.smaller_is_better);
  if (better) best_ = Best{id, metric};
}

bool SearcherBase::reached_goal(double metric) const {
  const auto goal = settings_.limits.goal;
  return goal && !std::isnan(metric) &&
         to_loss(metric, settings_.smaller_is_better) <= to_loss(*goal, settings_.smaller_is_better);
}

double SearcherBase::progress() const { return book_.progress(); }

nlohmann::json SearcherBase::save_state() const {
  nlohmann::json best = nullptr;
  if (best_) best = {{"id", best_->id}, {"metric", best_->metric}};
  return {{"kind", kind_}, {"book", book_.save()}, {"best", best}, {"method", save_method()}};
}

Status SearcherBase::load_state(const nlohmann::json& state) {
  try {
    if (state.at("kind") != kind_)
      return fail(Error::corruption("saved state of a " + state.at("kind").dump() + " searcher given to " + kind_));
    std::optional<Best> best;
    if (const auto& b = state.at("best"); !b.is_null()) best = Best{b.at("id").get<RequestId>(), b.at("metric").get<double>()};
    TrialBook book = book_;
    if (auto status = book.load(state.at("book")); !status) return status;
    if (auto status = load_method(state.at("method")); !status) return status;
    book_ = std::move(book);
    best_ = best;
  } catch (const nlohmann::json::exception& e) {
    return fail(Error::corruption(std::string("searcher state does not decode: ") + e.what()));
  }
  return {};
}

}  // namespace volador::search
