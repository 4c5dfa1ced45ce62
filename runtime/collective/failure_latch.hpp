#pragma once
// Remembers a communicator's first error so that every later call repeats
// it (a collective that failed half-way leaves the group unusable).

#include <optional>
#include <utility>

#include "runtime/core/error.hpp"

namespace volador::collective {

class FailureLatch {
 public:
  // Ok until record() saw an error; then that error, marked as earlier.
  [[nodiscard]] Status check() const {
    if (!first_) return {};
    return fail({first_->code, "communicator failed earlier: " + first_->message});
  }
  // Passes `s` through, keeping it if it is the first error.
  Status record(Status s) {
    if (!s && !first_) first_ = s.error();
    return s;
  }
 private:
  std::optional<Error> first_;
};

}  // namespace volador::collective
