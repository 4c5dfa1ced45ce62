#include "http/request_metrics.hpp"

#include <array>

#include <fmt/format.h>

namespace volador::http {
namespace {
constexpr std::array<double, 8> kLatencyBounds{0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5};
}

void RequestMetrics::record(const std::string& route, int status, std::chrono::duration<double> latency) {
  std::lock_guard lock(mutex_);
  ++requests_[{route, status}];
  auto& l = latency_[route];
  l.buckets.resize(kLatencyBounds.size());
  for (std::size_t i = 0; i < kLatencyBounds.size(); ++i)
    if (latency.count() <= kLatencyBounds[i]) ++l.buckets[i];
  l.sum += latency.count();
  ++l.count;
}

std::vector<MetricFamily> RequestMetrics::families() const {
  std::lock_guard lock(mutex_);
  MetricFamily requests{"volador_http_requests_total", "HTTP requests served, by route and status", "counter", {}};
  for (const auto& [key, count] : requests_)
    requests.samples.push_back({{{"route", key.first}, {"status", std::to_string(key.second)}}, static_cast<double>(count), ""});
  MetricFamily latency{"volador_http_request_seconds", "Time to answer an HTTP request, by route", "histogram", {}};
  for (const auto& [route, l] : latency_) {
    for (std::size_t i = 0; i < kLatencyBounds.size(); ++i)
      latency.samples.push_back({{{"route", route}, {"le", fmt::format("{}", kLatencyBounds[i])}}, static_cast<double>(l.buckets[i]), "_bucket"});
    latency.samples.push_back({{{"route", route}, {"le", "+Inf"}}, static_cast<double>(l.count), "_bucket"});
    latency.samples.push_back({{{"route", route}}, l.sum, "_sum"});
    latency.samples.push_back({{{"route", route}}, static_cast<double>(l.count), "_count"});
  }
  return {requests, latency};
}

}  // namespace volador::http
