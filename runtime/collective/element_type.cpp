#include "runtime/collective/element_type.hpp"

#include <string>

namespace volador::collective {

Status check_elements(std::span<const std::byte> data, DType type) {
  const std::size_t size = element_bytes(type);
  if (type != DType::f32 && type != DType::f16 && type != DType::bf16) {
    return fail(Error::invalid_argument("unknown element type " + std::to_string(static_cast<int>(type))));
  }
  if (data.size() % size != 0) {
    return fail(Error::invalid_argument(std::to_string(data.size()) + " bytes are not whole " +
                                        std::string(dtype_name(type)) + " elements"));
  }
  if (reinterpret_cast<std::uintptr_t>(data.data()) % size != 0) {
    return fail(Error::invalid_argument("a " + std::string(dtype_name(type)) + " buffer must be aligned to " +
                                        std::to_string(size) + " bytes"));
  }
  return {};
}

}  // namespace volador::collective
