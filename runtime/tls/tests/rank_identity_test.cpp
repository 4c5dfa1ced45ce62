#include <catch2/catch.hpp>

#include <openssl/x509v3.h>

#include "runtime/tls/certificate_authority.hpp"
#include "runtime/tls/identity_files.hpp"
#include "runtime/tls/openssl_handles.hpp"
#include "runtime/tls/rank_identity_folders.hpp"
#include "runtime/tls/tests/tls_test_support.hpp"

using namespace volador::tls;
using namespace std::chrono_literals;
using volador::tls::testing::mode_of;
using volador::tls::testing::ScratchDir;

TEST_CASE("A rank name round-trips through its common name and nothing else parses as one") {
  const RankName name{.experiment_id = 12, .trial_id = 345, .run_id = 6, .rank = 7};
  CHECK(name.common_name() == "rank:12:345:6.7");
  CHECK(parse_rank_name(name.common_name()) == name);
  for (const char* other : {"agent-7", "master", "admin", "rank:12:345:6", "rank:12:345:6.", "rank::345:6.7",
                            "rank:12:345:6.7x", "rank:a:345:6.7", "rank:12:345:6:7", "rank:12:345:99999999999.7", ""})
    CHECK_FALSE(parse_rank_name(other).has_value());
}

TEST_CASE("A rank identity is signed by the cluster CA, names its rank and expires when asked") {
  ScratchDir scratch;
  auto ca = CertificateAuthority::open_or_create(scratch.path / "ca");
  REQUIRE(ca.has_value());
  const RankName name{.experiment_id = 3, .trial_id = 41, .run_id = 2, .rank = 1};
  const auto before = std::chrono::system_clock::now();
  auto rank = ca->issue_rank(name, 48h);
  REQUIRE(rank.has_value());
  CHECK(check_identity(*rank).has_value());
  CHECK(parse_rank_name(subject_name(rank->certificate)) == name);
  auto expiry = expiry_time(rank->certificate);
  REQUIRE(expiry.has_value());
  // OpenSSL stamps with time(), which reads the kernel's coarse clock: up to
  // a tick behind system_clock, so a second earlier just after one begins.
  CHECK(*expiry >= std::chrono::floor<std::chrono::seconds>(before) - 1s + 48h);
  CHECK(*expiry <= std::chrono::system_clock::now() + 48h);

  SECTION("each launch gets its own key") {
    auto again = ca->issue_rank(name, 48h);
    REQUIRE(again.has_value());
    CHECK(again->private_key != rank->private_key);
  }
  SECTION("it can dial a node but never serve as one") {
    auto cert = detail::read_certificate(rank->certificate);
    CHECK(X509_check_purpose(cert.get(), X509_PURPOSE_SSL_CLIENT, 0) == 1);
    CHECK(X509_check_purpose(cert.get(), X509_PURPOSE_SSL_SERVER, 0) == 0);
  }
  SECTION("one past its validity is refused") {
    auto expired = ca->issue_rank(name, -2h);  // valid from an hour ago: already over
    REQUIRE(expired.has_value());
    auto checked = check_identity(*expired);
    REQUIRE_FALSE(checked.has_value());
    CHECK_THAT(checked.error().message, Catch::Contains("'rank:3:41:2.1' has expired"));
  }
}

TEST_CASE("A worker's rank identity folder is private, holds the rank's identity alone and goes when removed") {
  ScratchDir scratch;
  auto ca = CertificateAuthority::open_or_create(scratch.path / "ca");
  REQUIRE(ca.has_value());
  const auto work = scratch.path / "work";
  auto agent = ca->issue("agent-1");
  REQUIRE(agent.has_value());
  const auto agent_tls = work / "tls";
  REQUIRE(install_identity(*agent, agent_tls).has_value());
  auto rank = ca->issue_rank({.experiment_id = 1, .trial_id = 2, .run_id = 1, .rank = 0}, 1h);
  REQUIRE(rank.has_value());
  auto install = [&](const Identity& identity, std::uint64_t worker) {
    return install_rank_identity(identity.certificate, identity.private_key, agent_tls, work, worker);
  };
  auto dir = install(*rank, 7);
  REQUIRE(dir.has_value());
  CHECK(*dir == rank_identity_folder(work, 7));
  CHECK(mode_of(*dir) == 0700);
  CHECK(mode_of(IdentityFiles::in(*dir).private_key) == 0600);
  auto loaded = load_identity(*dir);
  REQUIRE(loaded.has_value());
  CHECK(loaded->certificate == rank->certificate);
  CHECK(loaded->private_key == rank->private_key);
  CHECK(loaded->private_key != agent->private_key);

  SECTION("a node's identity is not installed as a rank's") {
    auto refused = install(*agent, 8);
    REQUIRE_FALSE(refused.has_value());
    CHECK_THAT(refused.error().message, Catch::Contains("names 'agent-1', not a rank"));
    CHECK_FALSE(std::filesystem::exists(rank_identity_folder(work, 8)));
  }
  SECTION("a rank identity another CA signed is refused") {
    auto other = CertificateAuthority::open_or_create(scratch.path / "other-ca");
    REQUIRE(other.has_value());
    auto foreign = other->issue_rank({.experiment_id = 1, .trial_id = 2, .run_id = 1, .rank = 0}, 1h);
    REQUIRE(foreign.has_value());
    auto refused = install(*foreign, 8);
    REQUIRE_FALSE(refused.has_value());
    CHECK_THAT(refused.error().message, Catch::Contains("was not signed by this CA"));
  }
  SECTION("removing it leaves the other workers' folders") {
    REQUIRE(install(*rank, 9).has_value());
    remove_rank_identity(work, 7);
    CHECK_FALSE(std::filesystem::exists(*dir));
    CHECK(std::filesystem::exists(rank_identity_folder(work, 9)));
    remove_rank_identities(work);
    CHECK_FALSE(std::filesystem::exists(rank_identity_folder(work, 9)));
  }
}
