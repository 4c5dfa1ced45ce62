#include "actors/master_context.hpp"

#include <chrono>

namespace volador::actors {

std::int64_t now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

}  // namespace volador::actors
