#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <random>

#include "runtime/node/cluster_tls.hpp"
#include "runtime/tls/identity.hpp"
#include "runtime/tls/private_file.hpp"

using namespace volador;
namespace fs = std::filesystem;

namespace {

struct Scratch {
  fs::path path = fs::temp_directory_path() / ("volador-node-tls-" + std::to_string(std::random_device{}()));
  ~Scratch() { fs::remove_all(path); }
};

unsigned mode_of(const fs::path& path) {
  struct stat info {};
  ::stat(path.c_str(), &info);
  return info.st_mode & 0777;
}

}  // namespace

TEST_CASE("The master's first start creates its certificates and later starts keep them") {
  Scratch data;
  auto first = node::prepare_master_tls(data.path);
  REQUIRE(first.has_value());
  CHECK(mode_of(data.path / "tls") == 0700);
  CHECK(mode_of(data.path / "tls" / "ca" / "ca.key") == 0600);
  CHECK(mode_of(first->master.private_key) == 0600);
  CHECK(mode_of(first->admin_bundle) == 0600);
  CHECK(tls::load_identity(first->local_agent_dir).has_value());
  const auto admin = tls::read_text_file(first->admin_bundle).value();
  const auto master_cert = tls::read_text_file(first->master.certificate).value();
  CHECK(tls::subject_name(master_cert) == "master");

  auto second = node::prepare_master_tls(data.path);
  REQUIRE(second.has_value());
  CHECK(tls::read_text_file(second->admin_bundle).value() == admin);
  CHECK(tls::read_text_file(second->master.certificate).value() == master_cert);
}

TEST_CASE("A bundle is issued for a named node, never over an existing file") {
  Scratch data;
  REQUIRE(node::prepare_master_tls(data.path).has_value());
  const auto out = data.path / "node-b.bundle";
  REQUIRE(node::issue_bundle(data.path, "node-b", out).has_value());
  auto installed = node::install_agent_bundle(out, data.path / "work");
  REQUIRE(installed.has_value());
  CHECK(tls::subject_name(*tls::read_text_file(installed->certificate)) == "node-b");
  CHECK(installed->private_key == data.path / "work" / "tls" / "node.key");

  auto again = node::issue_bundle(data.path, "node-c", out);
  REQUIRE_FALSE(again.has_value());
  CHECK(again.error().code == ErrorCode::already_exists);
}

TEST_CASE("Issuing needs the master's data folder") {
  Scratch data;
  auto issued = node::issue_bundle(data.path, "node-b", data.path / "b.bundle");
  REQUIRE_FALSE(issued.has_value());
  CHECK_THAT(issued.error().message, Catch::Contains("no cluster CA") && Catch::Contains("--data"));
}

TEST_CASE("A master identity from another CA is refused, not overwritten") {
  Scratch data, other;
  REQUIRE(node::prepare_master_tls(data.path).has_value());
  REQUIRE(node::prepare_master_tls(other.path).has_value());
  fs::remove_all(data.path / "tls" / "master");
  fs::copy(other.path / "tls" / "master", data.path / "tls" / "master");
  auto prepared = node::prepare_master_tls(data.path);
  REQUIRE_FALSE(prepared.has_value());
  CHECK_THAT(prepared.error().message, Catch::Contains("issued by another CA"));
}
