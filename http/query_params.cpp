#include "http/query_params.hpp"

#include <charconv>

#include <fmt/format.h>

namespace volador::http {
namespace {

std::string listed(const std::set<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

}  // namespace

Result<QueryParams> QueryParams::read(const std::multimap<std::string, std::string>& params,
                                      const std::set<std::string>& allowed) {
  QueryParams out;
  for (const auto& [name, value] : params) {
    if (!allowed.contains(name))
      return fail(Error::invalid_argument(
          fmt::format("unknown query parameter '{}' (this route takes: {})", name, listed(allowed))));
    if (!out.values_.emplace(name, value).second)
      return fail(Error::invalid_argument(fmt::format("query parameter '{}' is given more than once", name)));
  }
  return out;
}

std::optional<std::string> QueryParams::text(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

Result<std::uint64_t> QueryParams::integer(const std::string& name, std::uint64_t fallback, std::uint64_t min,
                                           std::uint64_t max) const {
  auto value = text(name);
  if (!value) return fallback;
  std::uint64_t number = 0;
  auto [end, error] = std::from_chars(value->data(), value->data() + value->size(), number);
  if (error != std::errc{} || end != value->data() + value->size() || number < min || number > max)
    return fail(Error::invalid_argument(
        fmt::format("query parameter '{}': expected an integer from {} to {}, got '{}'", name, min, max, *value)));
  return number;
}

Result<bool> QueryParams::boolean(const std::string& name, bool fallback) const {
  auto value = text(name);
  if (!value) return fallback;
  if (*value == "true") return true;
  if (*value == "false") return false;
  return fail(Error::invalid_argument(fmt::format("query parameter '{}': expected true or false, got '{}'", name, *value)));
}

Result<std::string> QueryParams::choice(const std::string& name, const std::set<std::string>& choices,
                                        const std::string& fallback) const {
  auto value = text(name);
  if (!value) return fallback;
  if (!choices.contains(*value))
    return fail(Error::invalid_argument(
        fmt::format("query parameter '{}': expected one of {}, got '{}'", name, listed(choices), *value)));
  return *value;
}

}  // namespace volador::http
