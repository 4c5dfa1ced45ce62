#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "runtime/cli/token_store.hpp"

using namespace volador;
using namespace volador::cli;
namespace fs = std::filesystem;

namespace {

struct TempHome {
  fs::path dir = fs::temp_directory_path() / ("tokens-" + std::to_string(::getpid()));
  fs::path file = dir / ".volador" / "tokens.json";
  TempHome() { fs::remove_all(dir); }
  ~TempHome() { fs::remove_all(dir); }
};

}  // namespace

TEST_CASE("Tokens are kept per master in a file only its owner can read and forgotten one by one") {
  TempHome home;
  auto none = load_token(home.file, "127.0.0.1:17080");
  REQUIRE(none);
  CHECK_FALSE(*none);

  REQUIRE(save_token(home.file, "127.0.0.1:17080", {.token = "tok-a", .user = "admin", .expires_at_ms = 5}));
  REQUIRE(save_token(home.file, "10.0.0.1:17080", {.token = "tok-b", .user = "bob", .expires_at_ms = 6}));
  REQUIRE(save_token(home.file, "127.0.0.1:17080", {.token = "tok-c", .user = "admin", .expires_at_ms = 7}));
  struct stat st{};
  REQUIRE(::stat(home.file.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  REQUIRE(::stat(home.file.parent_path().c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);

  auto local = load_token(home.file, "127.0.0.1:17080");
  REQUIRE(local);
  REQUIRE(*local);
  CHECK((*local)->token == "tok-c");
  CHECK((*local)->expires_at_ms == 7);
  REQUIRE(forget_token(home.file, "127.0.0.1:17080"));
  CHECK_FALSE(*load_token(home.file, "127.0.0.1:17080"));
  CHECK((*load_token(home.file, "10.0.0.1:17080"))->user == "bob");
}

TEST_CASE("A damaged token file is named in the error and a login replaces it") {
  TempHome home;
  fs::create_directories(home.file.parent_path());
  std::ofstream(home.file) << "not json";
  auto damaged = load_token(home.file, "m:1");
  REQUIRE_FALSE(damaged);
  CHECK(damaged.error().code == ErrorCode::corruption);
  CHECK(damaged.error().message.find(home.file.string()) != std::string::npos);
  REQUIRE(save_token(home.file, "m:1", {.token = "t", .user = "u", .expires_at_ms = 1}));
  CHECK((*load_token(home.file, "m:1"))->token == "t");
}
