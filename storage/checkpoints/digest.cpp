#include "storage/checkpoints/digest.hpp"

#include <openssl/evp.h>

#include <array>
#include <memory>

#include "runtime/core/hex.hpp"
#include "storage/checkpoints/posix_file.hpp"

namespace volador::checkpoints {
namespace {

struct FreeMdContext {
  void operator()(EVP_MD_CTX* context) const { EVP_MD_CTX_free(context); }
};
using MdContext = std::unique_ptr<EVP_MD_CTX, FreeMdContext>;

Error openssl_error(const std::filesystem::path& path) {
  return Error::internal("OpenSSL SHA-256 failed on " + path.string());
}

}  // namespace

Result<FileDigest> digest_fd(int fd, const std::filesystem::path& path, const ChunkSink& sink) {
  MdContext context(EVP_MD_CTX_new());
  if (!context || EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr) != 1) return fail(openssl_error(path));
  FileDigest digest;
  std::array<char, 64 * 1024> buffer{};
  for (;;) {
    auto got = read_some(fd, buffer, path);
    if (!got) return fail(got.error());
    if (*got == 0) break;
    const std::span<const char> chunk(buffer.data(), *got);
    if (EVP_DigestUpdate(context.get(), chunk.data(), chunk.size()) != 1) return fail(openssl_error(path));
    if (sink) {
      if (auto sunk = sink(chunk); !sunk) return fail(sunk.error());
    }
    digest.size += chunk.size();
  }
  std::array<unsigned char, EVP_MAX_MD_SIZE> hash{};
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(context.get(), hash.data(), &length) != 1) return fail(openssl_error(path));
  digest.sha256 = to_hex(std::span(hash.data(), length));
  return digest;
}

}  // namespace volador::checkpoints
