#include "runtime/devices/discovery.hpp"

#include <unistd.h>

#include <charconv>
#include <cstdlib>

#include "runtime/devices/cuda_devices.hpp"

namespace volador::devices {
namespace {

constexpr std::uint64_t kFakeMemoryBytes = 80ULL << 30;

std::string host_name() {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  return name;
}

}  // namespace

Result<std::vector<Device>> fake_gpus(const std::string& spec, const std::string& host) {
  const auto colon = spec.find(':');
  const auto count_text = spec.substr(0, colon);
  unsigned count = 0;
  auto [end, ec] = std::from_chars(count_text.data(), count_text.data() + count_text.size(), count);
  if (ec != std::errc() || end != count_text.data() + count_text.size() || count > 64)
    return fail(Error::invalid_argument("VOLADOR_FAKE_GPUS='" + spec + "': expected N or N:MODEL with N in 0..64"));
  const std::string model = colon == std::string::npos ? "Fake GPU" : spec.substr(colon + 1);
  std::vector<Device> gpus;
  for (unsigned i = 0; i < count; ++i) gpus.push_back({"GPU-fake-" + host + "-" + std::to_string(i), model, kFakeMemoryBytes});
  return gpus;
}

Discovery discover_gpus() {
  if (const char* spec = std::getenv("VOLADOR_FAKE_GPUS"); spec != nullptr && *spec != '\0') {
    auto fake = fake_gpus(spec, host_name());
    if (fake) return {std::move(*fake), "VOLADOR_FAKE_GPUS (a test seam: nothing runs on these)"};
    return {{}, fake.error().message};
  }
  return cuda_devices();
}

}  // namespace volador::devices
