#include "runtime/command/json_environment.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace volador::command {

std::string render_json(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

EnvironmentVariables json_environment(std::string json, JsonVariables names, std::string_view file_path) {
  EnvironmentVariables variables{{std::string(names.file), std::string(file_path)}};
  if (json.size() <= kMaxInlineJsonBytes) variables.emplace(names.inline_value, std::move(json));
  return variables;
}

Status write_json_file(std::string_view json, const std::filesystem::path& file_path) {
  auto failed = [&] { return fail(Error::io("cannot write " + file_path.string() + ": " + std::strerror(errno))); };
  const int fd = ::open(file_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0666);
  if (fd < 0) return failed();
  std::string text;
  text.reserve(json.size() + 1);
  text.append(json).push_back('\n');
  for (std::string_view left = text; !left.empty();) {
    const auto written = ::write(fd, left.data(), left.size());
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) {
      const int err = written < 0 ? errno : EIO;
      ::close(fd);
      errno = err;
      return failed();
    }
    left.remove_prefix(static_cast<std::size_t>(written));
  }
  if (::close(fd) != 0) return failed();
  return {};
}

}  // namespace volador::command
