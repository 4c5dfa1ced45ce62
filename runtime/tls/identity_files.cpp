#include "runtime/tls/identity_files.hpp"

#include <vector>

#include "runtime/tls/openssl_handles.hpp"
#include "runtime/tls/private_file.hpp"

namespace volador::tls {
namespace fs = std::filesystem;

namespace {

// The PEM blocks of `text` in order ("-----BEGIN" to the matching "-----END ...-----").
std::vector<std::string> pem_blocks(const std::string& text) {
  std::vector<std::string> blocks;
  for (auto begin = text.find("-----BEGIN "); begin != std::string::npos; begin = text.find("-----BEGIN ", begin)) {
    auto end = text.find("-----END ", begin);
    if (end == std::string::npos) break;
    end = text.find("-----", end + 9);
    if (end == std::string::npos) break;
    blocks.push_back(text.substr(begin, end + 5 - begin) + "\n");
    begin = end + 5;
  }
  return blocks;
}

Error in_file(const fs::path& path, const Error& error) {
  return Error{error.code, path.string() + ": " + error.message};
}

}  // namespace

IdentityFiles IdentityFiles::in(const fs::path& dir) { return {dir / "ca.crt", dir / "node.crt", dir / "node.key"}; }

Result<IdentityFiles> install_identity(const Identity& identity, const fs::path& dir, Durability durability) {
  if (auto valid = check_identity(identity); !valid) return fail(valid.error());
  if (auto made = make_private_folder(dir); !made) return fail(made.error());
  const auto files = IdentityFiles::in(dir);
  for (const auto& [path, text] : {std::pair{files.private_key, &identity.private_key},
                                   {files.certificate, &identity.certificate},
                                   {files.ca_certificate, &identity.ca_certificate}})
    if (auto written = write_private_file(path, *text, durability); !written) return fail(written.error());
  return files;
}

Result<Identity> load_identity(const fs::path& dir) {
  const auto files = IdentityFiles::in(dir);
  Identity identity;
  for (const auto& [path, text] : {std::pair{files.ca_certificate, &identity.ca_certificate},
                                   {files.certificate, &identity.certificate},
                                   {files.private_key, &identity.private_key}}) {
    auto read = read_text_file(path);
    if (!read) return fail(read.error());
    *text = std::move(*read);
  }
  if (auto valid = check_identity(identity); !valid) return fail(in_file(dir, valid.error()));
  return identity;
}

Status write_bundle(const fs::path& path, const Identity& identity) {
  if (auto valid = check_identity(identity); !valid) return fail(valid.error());
  const std::string header = "# Volador node bundle: the certificate and private key of node '" +
                             subject_name(identity.certificate) + "' of cluster '" +
                             subject_name(identity.ca_certificate) +
                             "', then the cluster CA's certificate.\n# It holds a private key: keep it secret.\n";
  return write_private_file(path, header + identity.certificate + identity.private_key + identity.ca_certificate);
}

Result<Identity> read_bundle(const fs::path& path) {
  auto text = read_text_file(path);
  if (!text) return fail(text.error());
  auto blocks = pem_blocks(*text);
  if (blocks.size() != 3)
    return fail(Error::invalid_argument(path.string() + ": expected 3 PEM blocks (the node's certificate, its private key, "
                                        "the CA's certificate), found " + std::to_string(blocks.size())));
  Identity identity{blocks[2], blocks[0], blocks[1]};
  if (auto valid = check_identity(identity); !valid) return fail(in_file(path, valid.error()));
  return identity;
}

}  // namespace volador::tls
