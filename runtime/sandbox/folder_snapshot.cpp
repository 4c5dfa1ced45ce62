#include "runtime/sandbox/folder_snapshot.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <string_view>
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

// The folder `name` of the folder `at` (AT_FDCWD: `name` is a path), opened
// to read its names and stat its entries relative to it, never through a
// symlink; no descriptor when it is not a folder or cannot be opened.
UniqueFd folder_descriptor(int at, const fs::path& name) {
  return UniqueFd(::openat(at, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
}

// The names in the open folder `folder` (its descriptor read from the start,
// once); nullopt when it cannot be read.
std::optional<std::vector<std::string>> names_in(const UniqueFd& folder) {
  if (!folder) return std::nullopt;
  std::vector<std::string> names;
  std::vector<char> buffer(32768);  // on the heap: the callers recurse down folders
  for (;;) {
    const auto size = ::getdents64(folder.get(), buffer.data(), buffer.size());
    if (size < 0) return std::nullopt;
    if (size == 0) return names;
    for (ssize_t at = 0; at < size;) {
      const auto* entry = reinterpret_cast<const dirent64*>(buffer.data() + at);
      at += entry->d_reclen;
      const std::string_view name = entry->d_name;
      if (name != "." && name != "..") names.emplace_back(name);
    }
  }
}

// Whether `info` is a folder its owner may list, enter and change.
bool open_folder(const struct stat& info) { return S_ISDIR(info.st_mode) && (info.st_mode & S_IRWXU) == S_IRWXU; }

// The entry `name` of the folder `at` (AT_FDCWD: `name` is a path), symlinks not followed; nullopt when missing.
std::optional<struct stat> entry_stat(int at, const fs::path& name) {
  struct stat info {};
  if (::fstatat(at, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) return std::nullopt;
  return info;
}

// How deep holds_only_folders looks: a deeper tree (which a trial may make,
// relative paths knowing no PATH_MAX) counts as holding something else.
constexpr int kMaxFolderDepth = 32;

// Whether every entry under the open folder `folder` is such a folder, `depth` folders down.
bool holds_only_folders(const UniqueFd& folder, int depth = 1) {
  const auto names = names_in(folder);
  return names && depth <= kMaxFolderDepth && std::ranges::all_of(*names, [&](const std::string& name) {
           const auto info = entry_stat(folder.get(), name);
           return info && open_folder(*info) && holds_only_folders(folder_descriptor(folder.get(), name), depth + 1);
         });
}

// holds_nothing_to_pass_on for the entry `name` of the folder `at`.
bool holds_nothing_to_pass_on_at(int at, const fs::path& name) {
  const auto info = entry_stat(at, name);
  if (!info) return false;
  constexpr auto kOwnerReadWrite = S_IRUSR | S_IWUSR;
  if (S_ISREG(info->st_mode))
    return info->st_nlink == 1 && (info->st_mode & kOwnerReadWrite) == kOwnerReadWrite &&
           (info->st_mode & (S_ISUID | S_ISGID)) == 0;
  return open_folder(*info) && holds_only_folders(folder_descriptor(at, name));
}

}  // namespace

Result<FolderSnapshot::Entry> FolderSnapshot::read_entry(int at, const fs::path& name) {
  struct statx info {};
  const int flags = AT_SYMLINK_NOFOLLOW | (name.empty() ? AT_EMPTY_PATH : 0);
  if (::statx(at, name.c_str(), flags, STATX_BASIC_STATS, &info) != 0)
    return fail(Error::io("cannot stat " + name.string() + ": " + std::strerror(errno)));
  return Entry{info.stx_ino, info.stx_mode, info.stx_uid, info.stx_gid, info.stx_size, info.stx_ctime.tv_sec,
               info.stx_ctime.tv_nsec};
}

Result<FolderSnapshot::Entry> FolderSnapshot::read_entry(const fs::path& path) { return read_entry(AT_FDCWD, path); }

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
  std::size_t seen = 0;
  return restore_folder(dir, folder_descriptor(AT_FDCWD, dir), root_, {}, worker_scratch, seen) && seen == entries_.size();
}

// Checks that `folder` (the open folder `relative` of `dir`) is the one
// recorded as `was`, removes what it gained, checks what it held, and goes
// down into its folders; `seen` counts the entries found unchanged. Each
// entry is stat'ed relative to its open folder, and a folder through the
// descriptor its names are read from.
bool FolderSnapshot::restore_folder(const fs::path& dir, const UniqueFd& folder, const Entry& was,
                                    const fs::path& relative, const std::set<std::string>& worker_scratch,
                                    std::size_t& seen) const {
  if (!folder) return false;
  const auto now = read_entry(folder.get(), {});
  if (!now || !unchanged(was, *now)) return false;
  const auto names = names_in(folder);
  if (!names) return false;
  for (const auto& name : *names) {
    const auto path = relative / name;
    auto known = entries_.find(path);
    if (known == entries_.end()) {
      if (relative.empty() && worker_scratch.contains(name) && holds_nothing_to_pass_on_at(folder.get(), name)) continue;
      std::error_code ec;
      fs::remove_all(dir / path, ec);
      if (ec) return false;
      continue;
    }
    ++seen;
    if (S_ISDIR(known->second.mode)) {
      if (!restore_folder(dir, folder_descriptor(folder.get(), name), known->second, path, worker_scratch, seen)) return false;
      continue;
    }
    auto entry = read_entry(folder.get(), name);
    if (!entry || !unchanged(known->second, *entry)) return false;
  }
  return true;
}

Status FolderSnapshot::refresh(const fs::path& dir, const fs::path& name) {
  auto entry = read_entry(dir / name);
  if (!entry) return fail(entry.error());
  entries_[name] = *entry;
  return {};
}

bool holds_nothing_to_pass_on(const fs::path& path) { return holds_nothing_to_pass_on_at(AT_FDCWD, path); }

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
