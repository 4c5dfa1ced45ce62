// System errors for real: a 1 MiB tmpfs mounted for the test, filled up or
// made read-only (needs root or CAP_SYS_ADMIN; skipped with a warning where
// mounting is not permitted), and an unreadable file (needs a non-root user).

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/mount.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "storage/checkpoints/tests/test_support.hpp"

using namespace volador;
using namespace volador::checkpoints;
using namespace volador::checkpoints::testing;

namespace {

constexpr std::string_view kNoSpace = "No space left on device";

// A 1 MiB tmpfs at `dir`, unmounted on destruction.
class SmallTmpfs {
 public:
  explicit SmallTmpfs(const fs::path& dir) : dir_(dir) {
    fs::create_directories(dir_);
    if (::mount("tmpfs", dir_.c_str(), "tmpfs", 0, "size=1m") == 0) {
      mounted_ = true;
    } else {
      reason_ = std::strerror(errno);
    }
  }
  SmallTmpfs(const SmallTmpfs&) = delete;
  SmallTmpfs& operator=(const SmallTmpfs&) = delete;
  ~SmallTmpfs() {
    if (mounted_) ::umount2(dir_.c_str(), MNT_DETACH);
  }

  void set_read_only(bool read_only) {
    const unsigned long flags = MS_REMOUNT | (read_only ? MS_RDONLY : 0);
    REQUIRE(::mount("tmpfs", dir_.c_str(), "tmpfs", flags, "size=1m") == 0);
  }

  // False where mounting is not permitted: the test then passes as skipped, with a WARN saying why.
  bool usable() const {
    if (!mounted_) {
      WARN("disk-full test skipped: cannot mount a tmpfs at " << dir_ << " (" << reason_ << ")");
      SUCCEED("skipped: mounting is not permitted here");
    }
    return mounted_;
  }

 private:
  fs::path dir_;
  bool mounted_ = false;
  std::string reason_;
};

// Writes `path` until the filesystem is full.
void fill(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  REQUIRE(fd >= 0);
  const std::array<char, 4096> block{};
  while (::write(fd, block.data(), block.size()) > 0) {
  }
  const int err = errno;
  ::close(fd);
  REQUIRE(err == ENOSPC);
}

// A checkpoint begun in a store at `root`.
struct Begun {
  std::unique_ptr<SharedFsStore> store;
  std::string uuid;
  PendingCheckpoint pending;

  explicit Begun(const fs::path& root) : store(open_store(root)), uuid(fresh_uuid()) {
    auto begun = store->begin(uuid);
    REQUIRE(begun.has_value());
    pending = std::move(*begun);
  }
};

// `result` is an I/O error whose message names `path` and the system's `reason`.
template <class T>
void check_io_error(const Result<T>& result, const std::string& path, std::string_view reason) {
  REQUIRE_FALSE(result.has_value());
  CHECK(result.error().code == ErrorCode::io);
  CHECK_THAT(result.error().message, Catch::Contains(path) && Catch::Contains(std::string(reason)));
}

}  // namespace

TEST_CASE("commit on a full disk fails with the path and ENOSPC and shows nothing") {
  TempDir temp;
  SmallTmpfs disk(temp.path / "disk");
  if (!disk.usable()) return;
  Begun begun(temp.path / "disk/checkpoints");
  fill(begun.pending.dir / "weights.bin");

  check_io_error(begun.store->commit(begun.pending), (begun.pending.dir / kManifestFileName).string(), kNoSpace);
  CHECK(entries(begun.store->root()).empty());
  CHECK(begun.store->path(begun.uuid).error().code == ErrorCode::not_found);
}

TEST_CASE("download onto a full disk fails with the path and ENOSPC and leaves nothing") {
  TempDir temp;
  SmallTmpfs disk(temp.path / "disk");
  if (!disk.usable()) return;
  auto store = open_store(temp.path / "checkpoints");
  const std::string uuid = fresh_uuid();
  commit_files(*store, uuid, {{"weights.bin", std::string(2 << 20, 'w')}});

  check_io_error(store->download(uuid, temp.path / "disk/copy"), "weights.bin", kNoSpace);
  CHECK(entries(temp.path / "disk").empty());
}

TEST_CASE("commit on a read-only filesystem fails with the path and EROFS and shows nothing") {
  TempDir temp;
  SmallTmpfs disk(temp.path / "disk");
  if (!disk.usable()) return;
  Begun begun(temp.path / "disk/checkpoints");
  write_file(begun.pending.dir / "weights.bin", "w");
  disk.set_read_only(true);

  check_io_error(begun.store->commit(begun.pending), begun.pending.dir.string(), std::strerror(EROFS));
  CHECK(begun.store->path(begun.uuid).error().code == ErrorCode::not_found);
  disk.set_read_only(false);  // the private folder could not go; the next start sweeps it
  REQUIRE(begun.store->sweep_incomplete().has_value());
  CHECK(entries(begun.store->root()).empty());
}

TEST_CASE("commit of an unreadable file fails with the path and EACCES and shows nothing") {
  if (::geteuid() == 0) {
    WARN("permission test skipped: root reads every file");
    SUCCEED("skipped: running as root");
    return;
  }
  TempDir temp;
  Begun begun(temp.path / "checkpoints");
  write_file(begun.pending.dir / "weights.bin", "w");
  fs::permissions(begun.pending.dir / "weights.bin", fs::perms::none);

  check_io_error(begun.store->commit(begun.pending), (begun.pending.dir / "weights.bin").string(),
                 std::strerror(EACCES));
  CHECK(entries(begun.store->root()).empty());
}
