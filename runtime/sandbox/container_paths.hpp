#pragma once
// Where a bind mount may appear inside a rank's sandbox (sandbox_spec.hpp):
// the rule the config applies at submission.

#include <optional>
#include <string>
#include <string_view>

namespace volador::sandbox {

// Why `container_path` cannot take a bind mount, or nullopt when it can: it
// must be absolute and normal ("/data", not "data" or "/data/../x"), and
// must not be "/", /tmp, a system folder the sandbox needs (/usr, /etc,
// /proc, /dev ...) or the project folder's root (/run/volador), nor lie
// above or inside one (a folder under /tmp is fine).
std::optional<std::string> container_path_refusal(std::string_view container_path);

}  // namespace volador::sandbox
