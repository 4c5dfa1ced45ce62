#pragma once
// The query string of an API request, read strictly: a parameter the route
// does not know, one given twice, or a value of the wrong form is an
// invalid_argument naming it, never ignored. Pure.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "runtime/core/error.hpp"

namespace volador::http {

class QueryParams {
 public:
  // invalid_argument when `params` holds a name not in `allowed` or a name twice.
  static Result<QueryParams> read(const std::multimap<std::string, std::string>& params,
                                  const std::set<std::string>& allowed);

  [[nodiscard]] std::optional<std::string> text(const std::string& name) const;
  // The value as an unsigned integer in [min, max], or `fallback` when absent.
  [[nodiscard]] Result<std::uint64_t> integer(const std::string& name, std::uint64_t fallback, std::uint64_t min = 0,
                                              std::uint64_t max = UINT64_MAX) const;
  // "true" or "false", or `fallback` when absent.
  [[nodiscard]] Result<bool> boolean(const std::string& name, bool fallback) const;
  // One of `choices`, or `fallback` when absent.
  [[nodiscard]] Result<std::string> choice(const std::string& name, const std::set<std::string>& choices,
                                           const std::string& fallback) const;

 private:
  std::map<std::string, std::string> values_;
};

}  // namespace volador::http
