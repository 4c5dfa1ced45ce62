#include "runtime/worker/command_checkpoint.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <system_error>

#include <fmt/format.h>

#include "runtime/core/folder_names.hpp"
#include "runtime/worker/command_scratch.hpp"
#include "storage/checkpoints/manifest.hpp"
#include "storage/checkpoints/shared_fs_store.hpp"

namespace volador::worker {
namespace {

namespace fs = std::filesystem;

Error io_error(const std::string& what, const fs::path& path, const std::error_code& ec) {
  return Error::io(what + " " + path.string() + ": " + ec.message());
}

// How many files `dir` holds (in subfolders too), refusing what a checkpoint cannot hold.
Result<std::uint64_t> count_files(const fs::path& dir) {
  std::uint64_t files = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const auto status = it->symlink_status(ec);
    if (ec) break;
    const auto name = it->path().lexically_relative(dir).generic_string();
    if (fs::is_directory(status)) continue;
    if (!fs::is_regular_file(status))
      return fail(Error::invalid_argument(fmt::format(
          "'{}' in the checkpoint folder is a symlink or special file; a checkpoint holds files and folders only", name)));
    if (name == checkpoints::kManifestFileName)
      return fail(Error::invalid_argument(fmt::format(
          "the checkpoint folder holds a top-level '{}', the name of the checkpoint's own manifest; rename it",
          checkpoints::kManifestFileName)));
    ++files;
  }
  if (ec) return fail(io_error("cannot read", dir, ec));
  return files;
}

Status copy_tree(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::copy(from, to, fs::copy_options::recursive, ec);
  if (ec) return fail(io_error("cannot copy the checkpoint folder to", to, ec));
  return {};
}

// Moves `from` to `to` in one rename, or copies it across filesystems and removes it.
Status move_tree(const fs::path& from, const fs::path& to) {
  if (std::rename(from.c_str(), to.c_str()) == 0) return {};
  const int err = errno;
  if (err != EXDEV) return fail(io_error("cannot move " + from.string() + " to", to, {err, std::generic_category()}));
  if (auto copied = copy_tree(from, to); !copied) return copied;
  std::error_code ignored;
  fs::remove_all(from, ignored);
  return {};
}

// Makes `dir` anew and empty, with its parents: what an earlier run left there is removed.
std::error_code make_empty_folder(const fs::path& dir) {
  if (::mkdir(dir.c_str(), 0777) == 0) return {};  // one call in a fresh working folder, the usual case
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (!ec) fs::create_directories(dir, ec);
  return ec;
}

// Whether `dir` is a folder (not a symlink) holding nothing.
bool is_empty_folder(const fs::path& dir) {
  const auto names = folder_names(dir, 0);
  return names && names->empty();
}

// Whether `root` is a folder holding only `current`, an empty folder (neither
// a symlink): what a run needs, as the warm worker's last run left it in a
// working folder its agent reused.
bool holds_only_empty_current(const fs::path& root, const fs::path& current) {
  const auto names = folder_names(root, 1);
  return names && names->size() == 1 && names->front() == current.filename().string() && is_empty_folder(current);
}

}  // namespace

Result<CommandCheckpoints> CommandCheckpoints::prepare(const fs::path& work_dir, const std::string& restore_path) {
  CommandCheckpoints folders(work_dir / kCheckpointFoldersName, !restore_path.empty());
  std::error_code ec;
  if (!holds_only_empty_current(folders.root_, folders.current())) {
    ec = make_empty_folder(folders.root_);
    if (!ec && ::mkdir(folders.current().c_str(), 0777) != 0) ec = {errno, std::generic_category()};
  }
  if (ec) return fail(io_error("cannot prepare the checkpoint folders in", folders.root_, ec));
  if (restore_path.empty()) return folders;
  const fs::path restore(restore_path);
  auto store = checkpoints::SharedFsStore::open(restore.parent_path());
  if (!store) return fail(store.error());
  if (auto copied = (*store)->download(restore.filename().string(), folders.latest()); !copied)
    return fail(Error{copied.error().code, "cannot restore checkpoint " + restore_path + ": " + copied.error().message});
  return folders;
}

command::EnvironmentVariables CommandCheckpoints::environment() const {
  command::EnvironmentVariables env{{kCheckpointDirVariable, current().string()}};
  if (restored_) env[kLatestCheckpointVariable] = latest().string();
  return env;
}

Result<std::optional<std::string>> CommandCheckpoints::capture(const fs::path& staging, const std::string& snapshot) {
  const fs::path source = snapshot.empty() ? current() : snapshots() / snapshot;
  std::error_code ec;
  if (!snapshot.empty() && !fs::is_directory(source, ec))
    return fail(Error::invalid_argument("no checkpoint snapshot " + source.string()));
  // A command that saves no checkpoint leaves `current` empty: one look, not a walk.
  auto files = is_empty_folder(source) ? Result<std::uint64_t>(0) : count_files(source);
  if (!files) return fail(files.error());
  if (*files == 0) {
    drop_snapshot(snapshot);
    return std::optional<std::string>();
  }
  if (fs::create_directory(staging, ec); ec)  // the trial reserves it; the first capture makes it
    return fail(io_error("cannot make the staging folder", staging, ec));
  auto name = fmt::format("capture-{}", ++captures_);
  auto saved = snapshot.empty() ? copy_tree(source, staging / name) : move_tree(source, staging / name);
  if (!saved) return fail(saved.error());
  return std::optional(std::move(name));
}

void CommandCheckpoints::drop_snapshot(const std::string& snapshot) const {
  if (snapshot.empty()) return;
  std::error_code ignored;
  fs::remove_all(snapshots() / snapshot, ignored);
}

}  // namespace volador::worker
