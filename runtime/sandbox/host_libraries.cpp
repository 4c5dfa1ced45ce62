#include "runtime/sandbox/host_libraries.hpp"

namespace volador::sandbox {
namespace {

std::string_view trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

// "path (0x...)": the path.
std::string_view before_address(std::string_view text) { return trimmed(text.substr(0, text.find(" ("))); }

}  // namespace

Result<LddListing> parse_ldd_output(std::string_view output) {
  LddListing listing;
  while (!output.empty()) {
    const auto end = output.find('\n');
    const auto line = trimmed(output.substr(0, end));
    output = end == std::string_view::npos ? std::string_view{} : output.substr(end + 1);
    if (line.empty() || line.starts_with("linux-vdso") || line.find("statically linked") != std::string_view::npos)
      continue;
    const auto arrow = line.find("=>");
    if (arrow == std::string_view::npos) {  // the loader: "/lib64/ld-linux-x86-64.so.2 (0x...)"
      listing.loader = std::string(before_address(line));
      continue;
    }
    const auto path = before_address(line.substr(arrow + 2));
    if (path.empty() || path == "not found")
      return fail(Error::invalid_argument("a library the program needs is missing: " + std::string(line)));
    listing.libraries.emplace_back(path);
  }
  if (listing.loader.empty() && !listing.libraries.empty())
    return fail(Error::invalid_argument("ldd listed libraries but no loader"));
  return listing;
}

std::filesystem::path host_library_inside(const std::filesystem::path& host_path) {
  return std::filesystem::path(kHostLibrariesInside) / host_path.relative_path();
}

std::vector<SandboxMount> host_library_mounts(const HostLibraries& libraries) {
  std::vector<SandboxMount> mounts;
  for (const auto& folder : libraries.folders) mounts.push_back({folder, host_library_inside(folder), true});
  return mounts;
}

std::vector<std::string> host_loader_command(const HostLibraries& libraries, const std::string& prelude,
                                             const std::filesystem::path& program) {
  if (libraries.loader.empty()) return {"/bin/sh", "-c", prelude + "exec \"$0\"", program.string()};
  std::string path;
  for (const auto& folder : libraries.folders) path += (path.empty() ? "" : ":") + host_library_inside(folder).string();
  return {"/bin/sh", "-c", prelude + "exec \"$0\" --library-path \"$1\" \"$2\"",
          host_library_inside(libraries.loader).string(), path, program.string()};
}

}  // namespace volador::sandbox
