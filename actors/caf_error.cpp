#include "actors/caf_error.hpp"

#include <caf/atom.hpp>
#include <caf/message.hpp>
#include <caf/sec.hpp>

#include <string>

namespace volador::actors {
namespace {
constexpr caf::atom_value kCategory = caf::atom("volador");
// caf::error treats code 0 as "no error": codes travel shifted by one.
constexpr std::uint8_t kCodeOffset = 1;
constexpr std::uint8_t kLastCode = static_cast<std::uint8_t>(ErrorCode::permission_denied);
}

caf::error to_caf_error(const Error& error) {
  return caf::error(static_cast<std::uint8_t>(static_cast<std::uint8_t>(error.code) + kCodeOffset), kCategory,
                    caf::make_message(error.message));
}

Error from_caf_error(const caf::error& error) {
  if (!error) return Error::internal("an empty error was reported");
  if (error.category() == kCategory && error.context().match_elements<std::string>()) {
    const auto& message = error.context().get_as<std::string>(0);
    if (error.code() < kCodeOffset || error.code() - kCodeOffset > kLastCode)
      return Error::internal("an error with unknown code " + std::to_string(error.code()) + ": " + message);
    return Error{static_cast<ErrorCode>(error.code() - kCodeOffset), message};
  }
  if (error.category() == caf::atom("system"))
    return Error::unavailable(caf::to_string(static_cast<caf::sec>(error.code())));
  return Error::unavailable(caf::to_string(error));
}

}  // namespace volador::actors
