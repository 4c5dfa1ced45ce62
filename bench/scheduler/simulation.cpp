#include "bench/scheduler/simulation.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <optional>
#include <queue>
#include <string>
#include <tuple>

#include "runtime/scheduling/fair_share.hpp"
#include "runtime/scheduling/slot_scheduler.hpp"

namespace volador::bench {
namespace {

using scheduling::TrialId;

struct SimTrial {
  std::size_t experiment = 0;  // index in the workload
  std::int64_t work_left_ms = 0;
  std::int64_t requested_ms = 0;
  std::int64_t started_ms = 0;
  std::uint32_t version = 0;  // bumped at each grant: events of an older run are stale
  bool running = false;
};

// decide_again: a time the policy asked to decide again at (a preemption
// waited only on a minimum run), as the resource pool actor does.
enum class EventKind { arrival, finish, leave, decide_again };

struct Event {
  std::int64_t at_ms;
  std::uint64_t seq;
  EventKind kind;
  std::uint64_t subject;  // experiment index (arrival) or trial id
  std::uint32_t version;
  bool operator>(const Event& other) const { return std::tie(at_ms, seq) > std::tie(other.at_ms, other.seq); }
};

// CPU time this thread has used: unlike the wall clock, it leaves out the
// time the thread waits for a core on a loaded machine.
double thread_cpu_us() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e6 + static_cast<double>(t.tv_nsec) / 1e3;
}

Percentiles percentiles(std::vector<double> values) {
  if (values.empty()) return {};
  std::ranges::sort(values);
  auto at = [&](double q) { return values[static_cast<std::size_t>(q * static_cast<double>(values.size() - 1))]; };
  return {at(0.5), at(0.9), at(0.99), values.back()};
}

class Simulation {
 public:
  Simulation(const std::vector<SimExperiment>& workload, const SimOptions& options)
      : workload_(workload), options_(options), held_(workload.size(), 0), queued_(workload.size(), 0) {
    scheduler_.set_pool(scheduling::kDefaultPool, {.preemption = options.mode == PolicyMode::shares,
                                                   .min_run_before_preemption_ms = options.min_run_ms});
    for (std::uint32_t a = 0; a < options.agents; ++a)
      scheduler_.add_agent("agent-" + std::to_string(10000 + a), options.slots_per_agent);
    for (std::size_t e = 0; e < workload.size(); ++e) push(workload[e].arrival_ms, EventKind::arrival, e, 0);
  }

  SimResult run() {
    while (!events_.empty()) {
      const auto now = events_.top().at_ms;
      account_until(now);
      while (!events_.empty() && events_.top().at_ms == now) {
        const auto event = events_.top();
        events_.pop();
        apply(event);
      }
      decide();
    }
    return finish();
  }

 private:
  void push(std::int64_t at_ms, EventKind kind, std::uint64_t subject, std::uint32_t version) {
    events_.push({at_ms, seq_++, kind, subject, version});
  }

  scheduling::ExperimentShare share_of(std::size_t e) const {
    if (options_.mode == PolicyMode::fifo) return {};
    const auto& experiment = workload_[e];
    return {.experiment_id = experiment.id, .priority = experiment.priority, .weight = experiment.weight};
  }

  void queue(TrialId id) {
    auto& trial = trials_[id - 1];
    trial.requested_ms = *now_;
    queued_[trial.experiment] += workload_[trial.experiment].gang;
    auto queued =
        scheduler_.request({.trial_id = id, .slots = workload_[trial.experiment].gang, .share = share_of(trial.experiment)});
    if (!queued) {  // the workload's shares are valid: a bug
      std::fprintf(stderr, "trial %llu refused: %s\n", static_cast<unsigned long long>(id), queued.error().message.c_str());
      std::abort();
    }
  }

  void stop(TrialId id) {
    auto& trial = trials_[id - 1];
    trial.running = false;
    held_[trial.experiment] -= workload_[trial.experiment].gang;
    used_ -= workload_[trial.experiment].gang;
    scheduler_.release(id);
  }

  void apply(const Event& event) {
    *now_ = event.at_ms;
    if (event.kind == EventKind::decide_again) {
      if (decide_again_at_ms_ == event.at_ms) decide_again_at_ms_.reset();
      return;
    }
    if (event.kind == EventKind::arrival) {
      for (auto work : workload_[event.subject].trial_work_ms) {
        trials_.push_back({.experiment = event.subject, .work_left_ms = work});
        queue(trials_.size());
      }
      return;
    }
    auto& trial = trials_[event.subject - 1];
    if (!trial.running || trial.version != event.version) return;  // a stale event of an earlier run
    if (event.kind == EventKind::finish) {
      stop(event.subject);
      return;
    }
    // Preempted: the checkpoint keeps the work done until now.
    trial.work_left_ms -= event.at_ms - trial.started_ms;
    stop(event.subject);
    queue(event.subject);
  }

  void decide() {
    const auto pending = scheduler_.pending();
    const auto started = std::chrono::steady_clock::now();
    const auto cpu_started = thread_cpu_us();
    const auto decision = scheduler_.schedule();
    const double cpu_us = thread_cpu_us() - cpu_started;
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - started).count();
    decision_us_.push_back(us);
    decision_cpu_us_.push_back(cpu_us);
    if (pending >= options_.target_pending) {
      decision_us_at_target_.push_back(us);
      decision_cpu_us_at_target_.push_back(cpu_us);
    }
    result_.max_pending = std::max(result_.max_pending, static_cast<std::uint32_t>(pending));
    for (const auto& grant : decision.grants) start(grant.trial_id);
    for (const auto& preemption : decision.preemptions) {
      const auto& trial = trials_[preemption.trial_id - 1];
      push(*now_ + options_.checkpoint_ms, EventKind::leave, preemption.trial_id, trial.version);
      ++result_.preemptions;
    }
    if (const auto at = decision.decide_again_at_ms; at && (!decide_again_at_ms_ || *at < *decide_again_at_ms_)) {
      decide_again_at_ms_ = at;
      push(*at, EventKind::decide_again, 0, 0);
    }
    fairness_now_ = fairness_error();
  }

  void start(TrialId id) {
    auto& trial = trials_[id - 1];
    const auto& experiment = workload_[trial.experiment];
    const double waited = static_cast<double>(*now_ - trial.requested_ms) / 60'000;
    waits_.push_back(waited);
    if (experiment.priority == 10) waits_priority_10_.push_back(waited);
    trial.running = true;
    trial.started_ms = *now_;
    ++trial.version;
    queued_[trial.experiment] -= experiment.gang;
    held_[trial.experiment] += experiment.gang;
    used_ += experiment.gang;
    ++result_.grants;
    push(*now_ + trial.work_left_ms, EventKind::finish, id, trial.version);
  }

  // sum |held - ideal| / (2 capacity) over the experiments with work.
  double fairness_error() const {
    std::vector<scheduling::ShareDemand> demands;
    std::vector<std::size_t> members;
    for (std::size_t e = 0; e < workload_.size(); ++e)
      if (held_[e] + queued_[e] > 0) {
        demands.push_back({workload_[e].priority, workload_[e].weight, static_cast<double>(held_[e] + queued_[e])});
        members.push_back(e);
      }
    const auto ideal = scheduling::ideal_shares(demands, capacity());
    double error = 0;
    for (std::size_t i = 0; i < members.size(); ++i) error += std::abs(held_[members[i]] - ideal[i]);
    return error / (2 * capacity());
  }

  double capacity() const { return static_cast<double>(options_.agents) * options_.slots_per_agent; }

  // Adds the time since the last event to the averages, while trials wait.
  void account_until(std::int64_t now_ms) {
    if (scheduler_.pending() > 0) {
      const auto dt = static_cast<double>(now_ms - accounted_ms_);
      waiting_ms_ += dt;
      used_integral_ += dt * used_ / capacity();
      fairness_integral_ += dt * fairness_now_;
    }
    accounted_ms_ = now_ms;
  }

  SimResult finish() {
    result_.decisions = decision_us_.size();
    result_.makespan_hours = static_cast<double>(accounted_ms_) / 3'600'000;
    result_.utilisation = waiting_ms_ > 0 ? used_integral_ / waiting_ms_ : 0;
    result_.fairness_error = waiting_ms_ > 0 ? fairness_integral_ / waiting_ms_ : 0;
    result_.wait_minutes = percentiles(waits_);
    result_.wait_minutes_priority_10 = percentiles(waits_priority_10_);
    result_.decisions_at_target = decision_us_at_target_.size();
    result_.decision_us = percentiles(decision_us_);
    result_.decision_us_at_target = percentiles(decision_us_at_target_);
    result_.decision_cpu_us = percentiles(decision_cpu_us_);
    result_.decision_cpu_us_at_target = percentiles(decision_cpu_us_at_target_);
    return result_;
  }

  const std::vector<SimExperiment>& workload_;
  SimOptions options_;
  std::shared_ptr<std::int64_t> now_ = std::make_shared<std::int64_t>(0);
  scheduling::SlotScheduler scheduler_{[now = now_] { return *now; }};
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  std::uint64_t seq_ = 0;
  std::optional<std::int64_t> decide_again_at_ms_;  // the earliest decide_again event queued
  std::vector<SimTrial> trials_;  // trial id - 1
  std::vector<std::int64_t> held_, queued_;  // slots per experiment
  std::int64_t used_ = 0;
  double fairness_now_ = 0;
  std::int64_t accounted_ms_ = 0;
  double waiting_ms_ = 0, used_integral_ = 0, fairness_integral_ = 0;
  std::vector<double> waits_, waits_priority_10_, decision_us_, decision_us_at_target_;
  std::vector<double> decision_cpu_us_, decision_cpu_us_at_target_;
  SimResult result_;
};

}  // namespace

SimResult simulate(const std::vector<SimExperiment>& workload, const SimOptions& options) {
  return Simulation(workload, options).run();
}

}  // namespace volador::bench
