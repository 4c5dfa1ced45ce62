#include "runtime/config/length.hpp"

#include <algorithm>
#include <array>

#include "runtime/config/field_readers.hpp"
#include "runtime/config/section.hpp"

namespace volador::config {
namespace {

constexpr std::array<std::string_view, 3> kUnits{"batches", "records", "epochs"};

}  // namespace

Keys length_units() { return kUnits; }

std::optional<Length> read_length(Diagnostics& diag, const YAML::Node& node, const std::string& field) {
  Section section(diag, node, field, kUnits);
  if (!section.is_map()) return std::nullopt;
  std::optional<Length> length;
  int present = 0;
  for (std::size_t i = 0; i < kUnits.size(); ++i) {
    if (!section.get(kUnits[i])) continue;
    ++present;
    std::optional<std::uint64_t> value;
    section.read(kUnits[i], value, read_positive_u64);
    if (value) length = Length{static_cast<LengthUnit>(i), *value};
  }
  if (present > 1) {
    diag.report(node, field, "expected exactly one of batches, records, epochs; got " +
                                 std::to_string(present));
    return std::nullopt;
  }
  const bool misspelled = std::ranges::any_of(
      kUnits, [&](std::string_view unit) { return diag.misspelled(section.field(unit)); });
  if (present == 0 && !misspelled) {
    diag.report(node, field, "expected one of batches, records, epochs, e.g. {batches: 900}");
  }
  return length;
}

}  // namespace volador::config
