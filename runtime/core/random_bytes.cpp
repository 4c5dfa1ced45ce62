#include "runtime/core/random_bytes.hpp"

#include <sys/random.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "runtime/core/hex.hpp"

namespace volador {

void fill_random(std::span<unsigned char> bytes) {
  std::size_t filled = 0;
  while (filled < bytes.size()) {
    const ssize_t got = getrandom(bytes.data() + filled, bytes.size() - filled, 0);
    if (got > 0) {
      filled += static_cast<std::size_t>(got);
    } else if (got < 0 && errno != EINTR) {
      std::fprintf(stderr, "volador: getrandom failed: %s\n", std::strerror(errno));
      std::abort();
    }
  }
}

std::string random_hex(std::size_t bytes) {
  std::vector<unsigned char> random(bytes);
  fill_random(random);
  return to_hex(random);
}

std::uint32_t random_u32() {
  unsigned char bytes[4];
  fill_random(bytes);
  return static_cast<std::uint32_t>(bytes[0]) | static_cast<std::uint32_t>(bytes[1]) << 8 |
         static_cast<std::uint32_t>(bytes[2]) << 16 | static_cast<std::uint32_t>(bytes[3]) << 24;
}

}  // namespace volador
