#include "master/users/sodium.hpp"

#include <sodium.h>

namespace volador::master {

Status ensure_sodium() {
  static const bool ready = sodium_init() >= 0;
  if (ready) return {};
  return fail(Error::internal("libsodium could not be initialised"));
}

}  // namespace volador::master
