#include <catch2/catch.hpp>

#include <fstream>

#include "runtime/tls/certificate_authority.hpp"
#include "runtime/tls/identity_files.hpp"
#include "runtime/tls/private_file.hpp"
#include "runtime/tls/temporary_identity.hpp"
#include "runtime/tls/tests/tls_test_support.hpp"

using namespace volador::tls;
using volador::tls::testing::mode_of;
using volador::tls::testing::ScratchDir;

namespace {

Identity issued(const std::filesystem::path& ca_dir, const std::string& name) {
  auto ca = CertificateAuthority::open_or_create(ca_dir);
  REQUIRE(ca.has_value());
  auto identity = ca->issue(name);
  REQUIRE(identity.has_value());
  return *identity;
}

// `read` holds `written`'s certificate, key and CA certificate.
void check_same_identity(const volador::Result<Identity>& read, const Identity& written) {
  REQUIRE(read.has_value());
  CHECK(read->certificate == written.certificate);
  CHECK(read->private_key == written.private_key);
  CHECK(read->ca_certificate == written.ca_certificate);
}

}  // namespace

TEST_CASE("An identity folder round-trips, private") {
  ScratchDir scratch;
  const auto identity = issued(scratch.path / "ca", "agent-a");
  auto files = install_identity(identity, scratch.path / "id");
  REQUIRE(files.has_value());
  CHECK(mode_of(scratch.path / "id") == 0700);
  CHECK(mode_of(files->private_key) == 0600);
  check_same_identity(load_identity(scratch.path / "id"), identity);
}

TEST_CASE("A missing identity file is named") {
  ScratchDir scratch;
  REQUIRE(install_identity(issued(scratch.path / "ca", "x"), scratch.path / "id").has_value());
  std::filesystem::remove(scratch.path / "id" / "node.key");
  auto loaded = load_identity(scratch.path / "id");
  REQUIRE_FALSE(loaded.has_value());
  CHECK_THAT(loaded.error().message, Catch::Contains("node.key"));
}

TEST_CASE("A bundle round-trips as one private file") {
  ScratchDir scratch;
  const auto identity = issued(scratch.path / "ca", "agent-b");
  const auto path = scratch.path / "agent-b.bundle";
  REQUIRE(write_bundle(path, identity).has_value());
  CHECK(mode_of(path) == 0600);
  CHECK_THAT(*read_text_file(path), Catch::StartsWith("# Volador node bundle") && Catch::Contains("'agent-b'"));
  check_same_identity(read_bundle(path), identity);
}

TEST_CASE("Damaged bundles are refused with the file and the reason") {
  ScratchDir scratch;
  const auto identity = issued(scratch.path / "ca", "agent-c");
  const auto path = scratch.path / "bad.bundle";

  SECTION("a block missing") {
    REQUIRE(write_private_file(path, identity.certificate + identity.private_key).has_value());
    auto read = read_bundle(path);
    REQUIRE_FALSE(read.has_value());
    CHECK_THAT(read.error().message, Catch::Contains(path.string()) && Catch::Contains("expected 3 PEM blocks"));
  }
  SECTION("another cluster's CA") {
    const auto foreign = issued(scratch.path / "other-ca", "agent-c");
    REQUIRE(write_private_file(path, identity.certificate + identity.private_key + foreign.ca_certificate).has_value());
    auto read = read_bundle(path);
    REQUIRE_FALSE(read.has_value());
    CHECK_THAT(read.error().message, Catch::Contains(path.string()) && Catch::Contains("not signed by this CA"));
  }
  SECTION("no such file") {
    auto read = read_bundle(scratch.path / "absent.bundle");
    REQUIRE_FALSE(read.has_value());
    CHECK_THAT(read.error().message, Catch::Contains("absent.bundle"));
  }
}

TEST_CASE("A temporary identity lives in a private folder removed with it") {
  ScratchDir scratch;
  const auto bundle = scratch.path / "admin.bundle";
  REQUIRE(write_bundle(bundle, issued(scratch.path / "ca", "admin")).has_value());
  std::filesystem::path folder;
  {
    auto temporary = TemporaryIdentity::from_bundle(bundle);
    REQUIRE(temporary.has_value());
    folder = temporary->files().private_key.parent_path();
    CHECK(mode_of(folder) == 0700);
    CHECK(load_identity(folder).has_value());
  }
  CHECK_FALSE(std::filesystem::exists(folder));
}
