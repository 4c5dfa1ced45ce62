#include "runtime/net/descriptor_limit.hpp"

#include <sys/resource.h>

#include <algorithm>

namespace volador::net {

std::uint64_t wanted_soft_descriptor_limit(std::uint64_t soft, std::uint64_t hard) {
  return std::max(soft, std::min(hard, kWantedDescriptors));
}

std::uint64_t raise_descriptor_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return 0;
  const auto wanted = static_cast<rlim_t>(wanted_soft_descriptor_limit(limit.rlim_cur, limit.rlim_max));
  if (wanted == limit.rlim_cur) return limit.rlim_cur;
  rlimit raised = limit;
  raised.rlim_cur = wanted;
  return ::setrlimit(RLIMIT_NOFILE, &raised) == 0 ? raised.rlim_cur : limit.rlim_cur;
}

}  // namespace volador::net
