#include "runtime/devices/cuda_devices.hpp"

#ifdef VOLADOR_HAVE_CUDA_RUNTIME
#include <cuda_runtime_api.h>

#include <cstdio>
#endif

namespace volador::devices {

#ifdef VOLADOR_HAVE_CUDA_RUNTIME

namespace {

// CUDA's 16-byte UUID in the "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" form
// that nvidia-smi prints and CUDA_VISIBLE_DEVICES accepts.
std::string uuid_text(const cudaUUID_t& uuid) {
  std::string out = "GPU-";
  for (int i = 0; i < 16; ++i) {
    char hex[3];
    std::snprintf(hex, sizeof hex, "%02x", static_cast<unsigned char>(uuid.bytes[i]));
    out += hex;
    if (i == 3 || i == 5 || i == 7 || i == 9) out += '-';
  }
  return out;
}

}  // namespace

Discovery cuda_devices() {
  int count = 0;
  if (const auto status = cudaGetDeviceCount(&count); status != cudaSuccess)
    return {{}, std::string("CUDA runtime: no GPU (") + cudaGetErrorName(status) + ")"};
  Discovery found{{}, "CUDA runtime"};
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp properties{};
    if (cudaGetDeviceProperties(&properties, i) != cudaSuccess) continue;
    found.gpus.push_back({uuid_text(properties.uuid), properties.name, properties.totalGlobalMem});
  }
  return found;
}

#else

Discovery cuda_devices() { return {{}, "built without CUDA"}; }

#endif

}  // namespace volador::devices
