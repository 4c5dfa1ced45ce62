#include "runtime/tls/rank_name.hpp"

#include <charconv>

namespace volador::tls {
namespace {

constexpr std::string_view kPrefix = "rank:";

// Reads a decimal number up to `end` (or the text's end) from the front of `text`, consuming it and `end`.
template <class Number>
bool take_number(std::string_view& text, Number& out, std::optional<char> end) {
  const auto stop = end ? text.find(*end) : text.size();
  if (stop == std::string_view::npos || stop == 0) return false;
  auto [at, ec] = std::from_chars(text.data(), text.data() + stop, out);
  if (ec != std::errc() || at != text.data() + stop) return false;
  text.remove_prefix(end ? stop + 1 : stop);
  return true;
}

}  // namespace

std::string RankName::common_name() const {
  return std::string(kPrefix) + std::to_string(experiment_id) + ":" + std::to_string(trial_id) + ":" +
         std::to_string(run_id) + "." + std::to_string(rank);
}

std::optional<RankName> parse_rank_name(std::string_view common_name) {
  if (!common_name.starts_with(kPrefix)) return std::nullopt;
  common_name.remove_prefix(kPrefix.size());
  RankName name;
  if (!take_number(common_name, name.experiment_id, ':') || !take_number(common_name, name.trial_id, ':') ||
      !take_number(common_name, name.run_id, '.') || !take_number(common_name, name.rank, std::nullopt))
    return std::nullopt;
  return name;
}

}  // namespace volador::tls
