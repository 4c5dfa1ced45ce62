#include "runtime/sandbox/folder_snapshot.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <vector>

namespace volador::sandbox {

namespace fs = std::filesystem;

namespace {

// A folder's entries change its size and ctime: it is the same folder while
// its inode, mode and owner are (what it holds is checked entry by entry).
template <class Entry>
bool unchanged(const Entry& was, const Entry& now) {
  if (S_ISDIR(was.mode)) return was.inode == now.inode && was.mode == now.mode && was.uid == now.uid && was.gid == now.gid;
  return was == now;
}

// The names in `dir`; nullopt when it cannot be read.
std::optional<std::vector<fs::path>> names_in(const fs::path& dir) {
  std::error_code ec;
  std::vector<fs::path> names;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) names.push_back(it->path().filename());
  if (ec) return std::nullopt;
  return names;
}

// Whether `info` is a folder its owner may list, enter and change.
bool open_folder(const struct stat& info) { return S_ISDIR(info.st_mode) && (info.st_mode & S_IRWXU) == S_IRWXU; }

// Whether every entry under `dir` is such a folder (symlinks not followed).
bool holds_only_folders(const fs::path& dir) {
  const auto names = names_in(dir);
  return names && std::ranges::all_of(*names, [&](const fs::path& name) {
           struct stat info {};
           return ::lstat((dir / name).c_str(), &info) == 0 && open_folder(info) && holds_only_folders(dir / name);
         });
}

}  // namespace

Result<FolderSnapshot::Entry> FolderSnapshot::read_entry(const fs::path& path) {
  struct statx info {};
  if (::statx(AT_FDCWD, path.c_str(), AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &info) != 0)
    return fail(Error::io("cannot stat " + path.string() + ": " + std::strerror(errno)));
  return Entry{info.stx_ino, info.stx_mode, info.stx_uid, info.stx_gid, info.stx_size, info.stx_ctime.tv_sec,
               info.stx_ctime.tv_nsec};
}

Result<FolderSnapshot> FolderSnapshot::take(const fs::path& dir) {
  FolderSnapshot snapshot;
  auto root = read_entry(dir);
  if (!root) return fail(root.error());
  snapshot.root_ = *root;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    auto entry = read_entry(it->path());
    if (!entry) return fail(entry.error());
    snapshot.entries_.emplace(it->path().lexically_relative(dir), *entry);
  }
  if (ec) return fail(Error::io("cannot list " + dir.string() + ": " + ec.message()));
  return snapshot;
}

bool FolderSnapshot::restore(const fs::path& dir, const std::set<std::string>& worker_scratch) const {
  auto root = read_entry(dir);
  if (!root || !unchanged(root_, *root)) return false;
  std::size_t seen = 0;
  return restore_folder(dir, {}, worker_scratch, seen) && seen == entries_.size();
}

// Removes what the folder `relative` of `dir` gained, checks what it held, and
// goes down into its folders; `seen` counts the entries found unchanged.
bool FolderSnapshot::restore_folder(const fs::path& dir, const fs::path& relative,
                                    const std::set<std::string>& worker_scratch, std::size_t& seen) const {
  const auto names = names_in(dir / relative);
  if (!names) return false;
  for (const auto& name : *names) {
    const auto path = relative / name;
    auto known = entries_.find(path);
    std::error_code ec;
    if (known == entries_.end()) {
      if (relative.empty() && worker_scratch.contains(name.string()) && holds_nothing_to_pass_on(dir / path)) continue;
      fs::remove_all(dir / path, ec);
      if (ec) return false;
      continue;
    }
    auto now = read_entry(dir / path);
    if (!now || !unchanged(known->second, *now)) return false;
    ++seen;
    if (S_ISDIR(now->mode) && !restore_folder(dir, path, worker_scratch, seen)) return false;
  }
  return true;
}

Status FolderSnapshot::refresh(const fs::path& dir, const fs::path& name) {
  auto entry = read_entry(dir / name);
  if (!entry) return fail(entry.error());
  entries_[name] = *entry;
  return {};
}

bool holds_nothing_to_pass_on(const fs::path& path) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) return false;
  constexpr auto kOwnerReadWrite = S_IRUSR | S_IWUSR;
  if (S_ISREG(info.st_mode))
    return info.st_nlink == 1 && (info.st_mode & kOwnerReadWrite) == kOwnerReadWrite && (info.st_mode & (S_ISUID | S_ISGID)) == 0;
  return open_folder(info) && holds_only_folders(path);
}

bool ctime_marks_every_change(const fs::path& dir) {
  const auto probe = dir / ".volador-ctime-probe";
  const int fd = ::open(probe.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return false;
  const auto ctime_of = [fd](struct statx& info) {
    return ::statx(fd, "", AT_EMPTY_PATH, STATX_CTIME, &info) == 0;
  };
  bool every = true;
  for (int i = 0; i < 32 && every; ++i) {
    struct statx before {}, after {};
    const char byte = 'x';
    every = ctime_of(before) && ::pwrite(fd, &byte, 1, 0) == 1 && ctime_of(after) &&
            (before.stx_ctime.tv_sec != after.stx_ctime.tv_sec || before.stx_ctime.tv_nsec != after.stx_ctime.tv_nsec);
  }
  ::close(fd);
  ::unlink(probe.c_str());
  return every;
}

}  // namespace volador::sandbox
