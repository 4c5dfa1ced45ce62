#pragma once
// The host's dynamic loader and the folders of the libraries a Volador
// program links, as `ldd` lists them: a rank in an image runs the host's
// volador-worker through the host's loader with these folders, shown
// read-only under kHostLibrariesInside, so it needs nothing of the image but
// /bin/sh (the image's own programs keep the image's libraries). Pure.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/error.hpp"
#include "runtime/sandbox/sandbox_spec.hpp"

namespace volador::sandbox {

// Where the host's library folders appear inside an image's container.
inline constexpr std::string_view kHostLibrariesInside = "/run/volador/host";

// What `ldd` lists for a program: its loader and the library files it found, as named.
struct LddListing {
  std::filesystem::path loader;  // e.g. /lib64/ld-linux-x86-64.so.2; empty for a static program
  std::vector<std::filesystem::path> libraries;
};

// The loader and libraries of `ldd`'s output. Error invalid_argument quoting
// the line for a library ldd could not find, or when it lists libraries and no loader.
Result<LddListing> parse_ldd_output(std::string_view output);

// The same with every symbolic link resolved on the host (a link would
// resolve inside the image): the loader's own file, and the folders to show
// and search, each once (a library's and its link's, when they differ).
struct HostLibraries {
  std::filesystem::path loader;
  std::vector<std::filesystem::path> folders;
};

// Where `host_path` appears inside the container: under kHostLibrariesInside.
std::filesystem::path host_library_inside(const std::filesystem::path& host_path);

// The folders, read-only under kHostLibrariesInside (the loader's among them).
std::vector<SandboxMount> host_library_mounts(const HostLibraries& libraries);

// The shell command that runs `program` through the host's loader with the
// host's library folders (inside the container), after `prelude` (shell text
// ending in "; " or empty); the program's own processes load the image's libraries.
std::vector<std::string> host_loader_command(const HostLibraries& libraries, const std::string& prelude,
                                             const std::filesystem::path& program);

}  // namespace volador::sandbox
