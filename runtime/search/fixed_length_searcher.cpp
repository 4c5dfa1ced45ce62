#include "runtime/search/fixed_length_searcher.hpp"

#include <cmath>
#include <utility>

#include "runtime/hparams/sampling.hpp"

namespace volador::search {

FixedLengthSearcher::FixedLengthSearcher(std::string kind, std::uint64_t trials, const FixedLengthSettings& settings)
    : kind_(std::move(kind)), settings_(settings), book_(trials, settings.max_concurrent_trials) {}

Operations FixedLengthSearcher::advance() {
  Operations ops = book_.create_trials([this](RequestId id) {
    return CreateTrial{id, next_hparams(id), hparams::trial_seed(settings_.experiment_seed, id)};
  });
  if (auto shutdown = book_.take_shutdown()) ops.emplace_back(*shutdown);
  return ops;
}

Operations FixedLengthSearcher::initial_operations() { return advance(); }

Operations FixedLengthSearcher::on_trial_created(RequestId id) {
  if (!book_.is_alive(id)) return {};
  return {ValidateAfter{id, settings_.max_length_batches}};
}

Operations FixedLengthSearcher::on_validation_completed(RequestId id, double metric, std::uint64_t batches) {
  if (!book_.is_alive(id)) return {};
  note_metric(id, metric);
  if (batches < settings_.max_length_batches) return {};
  return {CloseTrial{id}};
}

void FixedLengthSearcher::note_metric(RequestId id, double metric) {
  if (std::isnan(metric)) return;
  const bool better = !best_ || (settings_.smaller_is_better ? metric < best_->metric : metric > best_->metric);
  if (better) best_ = Best{id, metric};
}

Operations FixedLengthSearcher::on_trial_closed(RequestId id) {
  if (!book_.finish(id, false)) return {};
  return advance();
}

Operations FixedLengthSearcher::on_trial_exited_early(RequestId id, ExitReason reason) {
  if (!book_.finish(id, reason == ExitReason::errored)) return {};
  if (replaces(reason)) book_.add_to_budget();
  return advance();
}

double FixedLengthSearcher::progress() const { return book_.progress(); }

nlohmann::json FixedLengthSearcher::save_state() const {
  nlohmann::json best = nullptr;
  if (best_) best = {{"id", best_->id}, {"metric", best_->metric}};
  return {{"kind", kind_}, {"book", book_.save()}, {"best", best}, {"generator", save_generator()}};
}

Status FixedLengthSearcher::load_state(const nlohmann::json& state) {
  try {
    if (state.at("kind") != kind_)
      return fail(Error::corruption("saved state of a " + state.at("kind").dump() + " searcher given to " + kind_));
    std::optional<Best> best;
    if (const auto& b = state.at("best"); !b.is_null()) best = Best{b.at("id").get<RequestId>(), b.at("metric").get<double>()};
    TrialBook book = book_;
    if (auto status = book.load(state.at("book")); !status) return status;
    if (auto status = load_generator(state.at("generator")); !status) return status;
    book_ = std::move(book);
    best_ = best;
  } catch (const nlohmann::json::exception& e) {
    return fail(Error::corruption(std::string("searcher state does not decode: ") + e.what()));
  }
  return {};
}

}  // namespace volador::search
