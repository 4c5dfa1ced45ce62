#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "master/users/first_admin.hpp"

using namespace volador;
using namespace volador::master;
namespace fs = std::filesystem;

namespace {

struct Fixture {
  fs::path dir = fs::temp_directory_path() / ("first-admin-" + std::to_string(::getpid()) + "-" +
                                              std::to_string(reinterpret_cast<std::uintptr_t>(this)));
  std::shared_ptr<storage::Journal> journal = storage::Journal::in_memory();
  UserDirectory users{journal, UserDirectoryOptions{.password_limits = fastest_password_limits()}};
  Fixture() { fs::create_directories(dir); }
  ~Fixture() { fs::remove_all(dir); }
};

std::string first_line(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  return line;
}

}  // namespace

TEST_CASE("Without a password given the first admin gets a random one written to DATA/admin.password with mode 0600") {
  Fixture f;
  REQUIRE(ensure_first_admin(f.users, f.dir, {}));
  const auto file = admin_password_file(f.dir);
  const auto password = first_line(file);
  CHECK(password.size() == 24);
  struct stat st{};
  REQUIRE(::stat(file.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  auto login = f.users.login("admin", password, "");
  REQUIRE(login);
  CHECK(login->user.admin);

  // A later start changes nothing, the file included.
  REQUIRE(ensure_first_admin(f.users, f.dir, {.file = std::nullopt, .value = "another-password"}));
  CHECK(first_line(file) == password);
  CHECK_FALSE(f.users.login("admin", "another-password", ""));
}

TEST_CASE("A password from a file (first line) or a value is used and not written anywhere") {
  Fixture f;
  SECTION("file") {
    const auto given = f.dir / "given";
    std::ofstream(given) << "from-a-file\nsecond line\n";
    REQUIRE(ensure_first_admin(f.users, f.dir, {.file = given, .value = "ignored-value"}));
    CHECK(f.users.login("admin", "from-a-file", ""));
  }
  SECTION("value") {
    REQUIRE(ensure_first_admin(f.users, f.dir, {.file = std::nullopt, .value = "from-the-env"}));
    CHECK(f.users.login("admin", "from-the-env", ""));
  }
  CHECK_FALSE(fs::exists(admin_password_file(f.dir)));
}

TEST_CASE("A missing or empty password file and a short password are refused and create nobody") {
  Fixture f;
  auto missing = ensure_first_admin(f.users, f.dir, {.file = f.dir / "nope", .value = std::nullopt});
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message == "cannot read the admin password file " + (f.dir / "nope").string());
  std::ofstream(f.dir / "empty") << "\n";
  auto empty = ensure_first_admin(f.users, f.dir, {.file = f.dir / "empty", .value = std::nullopt});
  REQUIRE_FALSE(empty);
  CHECK(empty.error().code == ErrorCode::invalid_argument);
  auto weak = ensure_first_admin(f.users, f.dir, {.file = std::nullopt, .value = "short"});
  REQUIRE_FALSE(weak);
  CHECK(weak.error().message == "creating the first admin: a password has at least 8 characters");
  CHECK(f.journal->users()->empty());
}
