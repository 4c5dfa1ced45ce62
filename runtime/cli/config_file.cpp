#include "runtime/cli/config_file.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace volador::cli {

Result<std::string> read_config_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return fail(Error::invalid_argument(path + " is a folder; expected the experiment config file (e.g. " +
                                        (std::filesystem::path(path) / "distributed.yaml").string() + ")"));
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(Error::not_found("cannot read " + path));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace volador::cli
