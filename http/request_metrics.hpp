#pragma once
// Counts of the HTTP requests served, by route and status, with their
// latency, for /metrics. Thread-safe.

#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "http/prometheus_text.hpp"

namespace volador::http {

class RequestMetrics {
 public:
  // One request to `route` (its pattern, e.g. "/api/v1/trials/{id}") answered with `status`.
  void record(const std::string& route, int status, std::chrono::duration<double> latency);
  // volador_http_requests_total and volador_http_request_seconds (a histogram by route).
  [[nodiscard]] std::vector<MetricFamily> families() const;

 private:
  struct Latency {
    std::vector<std::uint64_t> buckets;  // counts at or below each bound
    double sum = 0;
    std::uint64_t count = 0;
  };
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, int>, std::uint64_t> requests_;
  std::map<std::string, Latency> latency_;
};

}  // namespace volador::http
