#include "actors/workload_chain.hpp"

#include <iterator>
#include <utility>

namespace volador::actors {

wire::WorkloadRequest WorkloadChain::start(wire::WorkloadRequest request) {
  received_ = request;
  left_.assign(std::make_move_iterator(request.then.begin()), std::make_move_iterator(request.then.end()));
  results_.clear();
  running_ = true;
  request.then.clear();
  return request;
}

std::optional<wire::WorkloadRequest> WorkloadChain::next() {
  if (!received_ || left_.empty() || running_) return std::nullopt;
  running_ = true;
  auto step = std::move(left_.front());
  left_.pop_front();
  return step;
}

std::optional<wire::FinishedWorkload> WorkloadChain::finish(wire::WorkloadResult result) {
  if (!received_ || !running_) return std::nullopt;
  running_ = false;
  const bool failed = !result.error_message.empty();
  results_.push_back(std::move(result));
  if (!failed && !left_.empty()) return std::nullopt;
  auto answer = std::move(results_.front());
  answer.then.assign(std::make_move_iterator(std::next(results_.begin())), std::make_move_iterator(results_.end()));
  left_.clear();
  results_.clear();
  return wire::FinishedWorkload{.request = *std::exchange(received_, std::nullopt), .result = std::move(answer)};
}

}  // namespace volador::actors
