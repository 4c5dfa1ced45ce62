#pragma once
// What every API route shares while the server runs: the master's services,
// the server's limits, its request counters, the curves it keeps of ended
// trials and the JSON it keeps of unchanged experiments.

#include <atomic>
#include <cstddef>

#include "http/api_services.hpp"
#include "http/ended_trial_curves.hpp"
#include "http/http_limits.hpp"
#include "http/request_metrics.hpp"
#include "master/kept_answers.hpp"

namespace volador::http {

struct ApiContext {
  ApiServices services;
  HttpLimits limits;
  RequestMetrics requests;
  EndedTrialCurves ended_trial_curves;
  master::KeptAnswers<std::string> kept_answers;  // experiment details and trial lists, as JSON
  std::atomic<std::size_t> event_streams{0};  // live log streams now
  std::atomic<bool> stopping{false};          // the server is stopping: live streams end
};

}  // namespace volador::http
