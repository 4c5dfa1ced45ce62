#pragma once
// An identity read from a bundle and installed in a private temporary folder
// for the life of the object (CAF's OpenSSL module reads its certificate and
// key from files): what the client and short-lived tools present.

#include <filesystem>

#include "runtime/core/error.hpp"
#include "runtime/tls/identity_files.hpp"

namespace volador::tls {

class TemporaryIdentity {
 public:
  // Reads and checks `bundle` and installs it under $TMPDIR (or /tmp).
  // Errors name the bundle and what is wrong with it.
  static Result<TemporaryIdentity> from_bundle(const std::filesystem::path& bundle);

  [[nodiscard]] const IdentityFiles& files() const { return files_; }

  TemporaryIdentity(TemporaryIdentity&& other) noexcept;
  TemporaryIdentity& operator=(TemporaryIdentity&&) = delete;
  ~TemporaryIdentity();  // removes the folder

 private:
  TemporaryIdentity(std::filesystem::path dir, IdentityFiles files) : dir_(std::move(dir)), files_(std::move(files)) {}

  std::filesystem::path dir_;
  IdentityFiles files_;
};

}  // namespace volador::tls
