#pragma once
// Random bytes from the kernel's CSPRNG (getrandom(2)). Unlike
// std::random_device, whose every construction probes the CPU with CPUID
// (a trap to the hypervisor in a VM: ~2.6 % of the master's CPU when a
// trial's secrets were made with it), it costs one system call.

#include <cstdint>
#include <span>
#include <string>

namespace volador {

// Fills `bytes`. Aborts when the kernel cannot (no getrandom(2): Linux < 3.17).
void fill_random(std::span<unsigned char> bytes);

// `bytes` random bytes as lowercase hex (2 digits each).
std::string random_hex(std::size_t bytes);

// A random 32-bit number.
std::uint32_t random_u32();

}  // namespace volador
