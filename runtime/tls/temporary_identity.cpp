#include "runtime/tls/temporary_identity.hpp"

#include <stdlib.h>

#include <cstring>

namespace volador::tls {
namespace fs = std::filesystem;

Result<TemporaryIdentity> TemporaryIdentity::from_bundle(const fs::path& bundle) {
  auto identity = read_bundle(bundle);
  if (!identity) return fail(identity.error());
  std::error_code ec;
  std::string pattern = (fs::temp_directory_path(ec) / "volador-identity-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr)  // mode 0700
    return fail(Error::io("cannot create a private folder for " + bundle.string() + ": " + std::strerror(errno)));
  auto files = install_identity(*identity, pattern);
  if (!files) {
    fs::remove_all(pattern, ec);
    return fail(files.error());
  }
  return TemporaryIdentity(pattern, *files);
}

TemporaryIdentity::TemporaryIdentity(TemporaryIdentity&& other) noexcept
    : dir_(std::exchange(other.dir_, {})), files_(std::move(other.files_)) {}

TemporaryIdentity::~TemporaryIdentity() {
  if (dir_.empty()) return;
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

}  // namespace volador::tls
