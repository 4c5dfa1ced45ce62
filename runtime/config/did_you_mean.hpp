#pragma once
// Internal to volador_config: suggestions for misspelled names.

#include <optional>
#include <span>
#include <string_view>

namespace volador::config {

// Levenshtein distance (insertions, deletions, substitutions cost 1).
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `name`, if it is close enough to be a plausible
// typo: at most half the length of the longer of the two words away
// ("records1281167epoch" -> "records_per_epoch", "registrt_auth" ->
// "registry_auth"), or one word of 3 letters or more beginning the other
// ("integer" -> "int"); never `name` itself.
std::optional<std::string_view> did_you_mean(std::string_view name,
                                             std::span<const std::string_view> candidates);

}  // namespace volador::config
