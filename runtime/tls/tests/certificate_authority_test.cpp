#include <catch2/catch.hpp>

#include <fstream>

#include "runtime/tls/certificate_authority.hpp"
#include "runtime/tls/private_file.hpp"
#include "runtime/tls/tests/tls_test_support.hpp"

using namespace volador::tls;
using volador::tls::testing::mode_of;
using volador::tls::testing::ScratchDir;

TEST_CASE("A CA is created once, private, and reopened unchanged") {
  ScratchDir scratch;
  const auto dir = scratch.path / "ca";
  auto created = CertificateAuthority::open_or_create(dir);
  REQUIRE(created.has_value());
  CHECK(mode_of(dir) == 0700);
  CHECK(mode_of(dir / "ca.key") == 0600);
  CHECK(created->cluster_name().starts_with("volador-"));
  auto reopened = CertificateAuthority::open_or_create(dir);
  REQUIRE(reopened.has_value());
  CHECK(reopened->certificate() == created->certificate());
}

TEST_CASE("Two clusters get different CAs") {
  ScratchDir scratch;
  auto a = CertificateAuthority::open_or_create(scratch.path / "a");
  auto b = CertificateAuthority::open_or_create(scratch.path / "b");
  REQUIRE((a && b));
  CHECK(a->certificate() != b->certificate());
  CHECK(a->cluster_name() != b->cluster_name());
}

TEST_CASE("An issued identity is whole, named, and signed by its CA alone") {
  ScratchDir scratch;
  auto ca = CertificateAuthority::open_or_create(scratch.path / "ca");
  auto other = CertificateAuthority::open_or_create(scratch.path / "other");
  REQUIRE((ca && other));
  auto agent = ca->issue("agent-7.rack_2");
  REQUIRE(agent.has_value());
  CHECK(check_identity(*agent).has_value());
  CHECK(subject_name(agent->certificate) == "agent-7.rack_2");
  CHECK(agent->ca_certificate == ca->certificate());

  SECTION("trusting another cluster's CA fails the check") {
    auto foreign = *agent;
    foreign.ca_certificate = other->certificate();
    auto checked = check_identity(foreign);
    REQUIRE_FALSE(checked.has_value());
    CHECK_THAT(checked.error().message, Catch::Contains("was not signed by this CA"));
  }
  SECTION("another node's key fails the check") {
    auto mixed = *agent;
    mixed.private_key = ca->issue("b")->private_key;
    auto checked = check_identity(mixed);
    REQUIRE_FALSE(checked.has_value());
    CHECK_THAT(checked.error().message, Catch::Contains("does not belong to the certificate"));
  }
  SECTION("the CA's own certificate and key are not a node identity") {
    CHECK_FALSE(check_identity({ca->certificate(), ca->certificate(), agent->private_key}).has_value());
  }
}

TEST_CASE("Bad node names are refused with the rule") {
  ScratchDir scratch;
  auto ca = CertificateAuthority::open_or_create(scratch.path / "ca");
  REQUIRE(ca.has_value());
  for (const std::string& name : std::vector<std::string>{"", "has space", "slash/name", std::string(65, 'a'), "ünïcode"}) {
    auto issued = ca->issue(name);
    REQUIRE_FALSE(issued.has_value());
    CHECK_THAT(issued.error().message, Catch::Contains("[A-Za-z0-9._-]"));
  }
}

TEST_CASE("A damaged CA folder is refused, not replaced") {
  ScratchDir scratch;
  const auto dir = scratch.path / "ca";
  REQUIRE(CertificateAuthority::open_or_create(dir).has_value());
  const auto key_before = read_text_file(dir / "ca.key").value();
  std::ofstream(dir / "ca.crt") << "not a certificate\n";
  auto reopened = CertificateAuthority::open_or_create(dir);
  REQUIRE_FALSE(reopened.has_value());
  CHECK_THAT(reopened.error().message, Catch::Contains("damaged"));
  CHECK(read_text_file(dir / "ca.key").value() == key_before);
}

TEST_CASE("An identity issued with host names carries them as subject alternative names") {
  ScratchDir scratch;
  auto ca = CertificateAuthority::open_or_create(scratch.path / "ca");
  REQUIRE(ca);
  auto web = ca->issue("master", {"localhost", "127.0.0.1", "::1", "gpu-a.example.org"});
  REQUIRE(web);
  CHECK(check_identity(*web).has_value());
  const auto pem_file = scratch.path / "web.crt";
  std::ofstream(pem_file) << web->certificate;
  // The names as OpenSSL itself reads them back.
  const std::string command = "openssl x509 -noout -ext subjectAltName -in " + pem_file.string();
  std::string text;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char buffer[512];
    while (fgets(buffer, sizeof buffer, pipe) != nullptr) text += buffer;
    pclose(pipe);
  }
  CHECK_THAT(text, Catch::Contains("DNS:localhost") && Catch::Contains("IP Address:127.0.0.1") &&
                       Catch::Contains("IP Address:0:0:0:0:0:0:0:1") && Catch::Contains("DNS:gpu-a.example.org"));

  auto bad = ca->issue("master", {"not a host/name"});
  REQUIRE_FALSE(bad);
  CHECK_THAT(bad.error().message, Catch::Contains("'not a host/name'"));
}
