#include "storage/checkpoints/shared_fs_store.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

#include "runtime/core/file_read.hpp"
#include "storage/checkpoints/checkpoint_folder.hpp"
#include "storage/checkpoints/posix_file.hpp"
#include "storage/checkpoints/uuid.hpp"

namespace volador::checkpoints {
namespace {

namespace fs = std::filesystem;

// Every folder under the root whose name starts with this is unfinished work.
constexpr std::string_view kIncompletePrefix = ".tmp-";

Status check_uuid(std::string_view uuid) {
  if (is_uuid(uuid)) return {};
  return fail(Error::invalid_argument("'" + std::string(uuid) +
                                      "' is not a checkpoint uuid (a lowercase RFC 4122 UUID is expected)"));
}

// Best effort: a tree that cannot be removed now is left to sweep_incomplete().
void discard_tree(const fs::path& path) {
  std::error_code ignored;
  fs::remove_all(path, ignored);
}

Status remove_tree(const fs::path& path) {
  std::error_code ec;
  fs::remove_all(path, ec);
  if (ec) return fail(Error::io("cannot remove " + path.string() + ": " + ec.message()));
  return {};
}

Status rename_path(const fs::path& from, const fs::path& to) {
  if (std::rename(from.c_str(), to.c_str()) == 0) return {};
  const int err = errno;
  return fail(io_error("cannot rename " + from.string() + " to", to, err));
}

// `dest` made absolute and without a trailing separator, so that
// parent_path() and filename() name the folder's parent and itself.
Result<fs::path> folder_path(const fs::path& dest) {
  std::error_code ec;
  const fs::path normal = fs::absolute(dest, ec).lexically_normal();
  if (ec) return fail(Error::io("cannot resolve " + dest.string() + ": " + ec.message()));
  return normal.has_filename() ? normal : normal.parent_path();
}

Status check_missing_or_empty(const fs::path& dest) {
  std::error_code ec;
  const bool exists = fs::exists(dest, ec);
  if (ec) return fail(Error::io("cannot read " + dest.string() + ": " + ec.message()));
  if (!exists) return {};
  if (fs::is_directory(dest, ec) && fs::is_empty(dest, ec) && !ec) return {};
  return fail(Error::already_exists(dest.string() + " exists and is not an empty folder"));
}

}  // namespace

Result<std::unique_ptr<SharedFsStore>> SharedFsStore::open(const fs::path& root) {
  std::error_code ec;
  fs::create_directories(root, ec);
  if (ec) return fail(Error::io("cannot create checkpoint storage " + root.string() + ": " + ec.message()));
  if (!fs::is_directory(root, ec)) return fail(Error::io("checkpoint storage " + root.string() + " is not a folder"));
  return std::unique_ptr<SharedFsStore>(new SharedFsStore(root));
}

fs::path SharedFsStore::committed_dir(std::string_view uuid) const { return root_ / uuid; }

fs::path SharedFsStore::pending_dir(std::string_view uuid) const {
  return root_ / (std::string(kIncompletePrefix) + std::string(uuid));
}

// A valid uuid not committed yet.
Status SharedFsStore::check_free(std::string_view uuid) const {
  if (auto valid = check_uuid(uuid); !valid) return valid;
  std::error_code ec;
  if (fs::exists(committed_dir(uuid), ec)) {
    return fail(Error::already_exists("checkpoint " + std::string(uuid) + " is already committed in " + root_.string()));
  }
  return {};
}

Result<PendingCheckpoint> SharedFsStore::begin(std::string_view uuid) {
  if (auto free = check_free(uuid); !free) return fail(free.error());
  const fs::path dir = pending_dir(uuid);
  if (::mkdir(dir.c_str(), 0755) != 0) {
    const int err = errno;
    if (err == EEXIST) return fail(Error::already_exists("checkpoint " + std::string(uuid) + " is already being written"));
    return fail(io_error("cannot create", dir, err));
  }
  return PendingCheckpoint{.uuid = std::string(uuid), .dir = dir};
}

Result<PendingCheckpoint> SharedFsStore::reserve(std::string_view uuid) {
  if (auto free = check_free(uuid); !free) return fail(free.error());
  const fs::path dir = pending_dir(uuid);
  std::error_code ec;
  if (fs::exists(dir, ec)) return fail(Error::already_exists("checkpoint " + std::string(uuid) + " is already being written"));
  return PendingCheckpoint{.uuid = std::string(uuid), .dir = dir};
}

Result<PendingCheckpoint> SharedFsStore::begin_from(std::string_view uuid, const PendingCheckpoint& staging,
                                                    std::string_view name) {
  if (auto free = check_free(uuid); !free) return fail(free.error());
  if (auto valid = check_pending(staging); !valid) return fail(valid.error());
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string_view::npos)
    return fail(Error::invalid_argument("'" + std::string(name) + "' is not a plain folder name"));
  const fs::path from = staging.dir / name;
  const fs::path dir = pending_dir(uuid);
  std::error_code ec;
  if (!fs::is_directory(from, ec)) return fail(Error::not_found("no folder " + from.string() + " to checkpoint"));
  if (fs::exists(dir, ec))
    return fail(Error::already_exists("checkpoint " + std::string(uuid) + " is already being written"));
  if (auto moved = rename_path(from, dir); !moved) return fail(moved.error());
  return PendingCheckpoint{.uuid = std::string(uuid), .dir = dir};
}

Status SharedFsStore::check_pending(const PendingCheckpoint& pending) const {
  if (auto valid = check_uuid(pending.uuid); !valid) return valid;
  if (pending.dir != pending_dir(pending.uuid)) {
    return fail(Error::invalid_argument("checkpoint " + pending.uuid + " was not begun in " + root_.string()));
  }
  return {};
}

Result<CheckpointManifest> SharedFsStore::commit(const PendingCheckpoint& pending) {
  if (auto valid = check_pending(pending); !valid) return fail(valid.error());
  auto manifest = seal_folder(pending.dir, pending.uuid);
  if (manifest) {
    if (auto published = publish(pending); !published) manifest = fail(published.error());
  }
  if (!manifest) discard_tree(pending.dir);
  return manifest;
}

// Makes the sealed folder visible; takes it back if that cannot be made durable.
Status SharedFsStore::publish(const PendingCheckpoint& pending) {
  if (auto renamed = rename_path(pending.dir, committed_dir(pending.uuid)); !renamed) return renamed;
  auto synced = fsync_directory(root_);
  if (!synced) std::ignore = remove(pending.uuid);  // best effort: the fsync error is the one to report
  return synced;
}

Status SharedFsStore::abort(const PendingCheckpoint& pending) {
  if (auto valid = check_pending(pending); !valid) return valid;
  return remove_tree(pending.dir);
}

Result<SharedFsStore::StoredManifest> SharedFsStore::load_manifest(std::string_view uuid) const {
  if (auto valid = check_uuid(uuid); !valid) return fail(valid.error());
  const fs::path dir = committed_dir(uuid);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return fail(Error::not_found("no checkpoint " + std::string(uuid) + " in " + root_.string()));
  }
  const fs::path path = dir / kManifestFileName;
  if (!fs::exists(path, ec)) return fail(Error::corruption("checkpoint " + path.string() + " is missing"));
  auto text = read_file(path);
  if (!text) return fail(text.error());
  auto manifest = parse_manifest(*text, path.string());
  if (!manifest) return fail(manifest.error());
  if (manifest->uuid != uuid) {
    return fail(Error::corruption(path.string() + " belongs to checkpoint " + manifest->uuid));
  }
  return StoredManifest{.text = std::move(*text), .manifest = std::move(*manifest)};
}

Status SharedFsStore::verify(std::string_view uuid) const {
  auto stored = load_manifest(uuid);
  if (!stored) return fail(stored.error());
  for (const ManifestFile& file : stored->manifest.files) {
    if (auto checked = check_file(committed_dir(uuid), file); !checked) return checked;
  }
  return {};
}

Result<fs::path> SharedFsStore::path(std::string_view uuid) const {
  if (auto valid = check_uuid(uuid); !valid) return fail(valid.error());
  std::error_code ec;
  if (!fs::is_directory(committed_dir(uuid), ec)) {
    return fail(Error::not_found("no checkpoint " + std::string(uuid) + " in " + root_.string()));
  }
  return committed_dir(uuid);
}

Status SharedFsStore::remove(std::string_view uuid) {
  if (auto valid = check_uuid(uuid); !valid) return valid;
  const fs::path doomed = root_ / (std::string(kIncompletePrefix) + std::string(uuid) + ".removing");
  if (auto cleared = remove_tree(doomed); !cleared) return cleared;
  const fs::path dir = committed_dir(uuid);
  if (std::rename(dir.c_str(), doomed.c_str()) != 0) {
    const int err = errno;
    if (err == ENOENT) return {};
    return fail(io_error("cannot remove", dir, err));
  }
  if (auto synced = fsync_directory(root_); !synced) return synced;
  return remove_tree(doomed);
}

Status SharedFsStore::download(std::string_view uuid, const fs::path& dest_dir) const {
  auto stored = load_manifest(uuid);
  if (!stored) return fail(stored.error());
  auto resolved = folder_path(dest_dir);
  if (!resolved) return fail(resolved.error());
  const fs::path& dest = *resolved;
  if (auto free = check_missing_or_empty(dest); !free) return free;
  std::error_code ec;
  fs::create_directories(dest.parent_path(), ec);
  if (ec) return fail(Error::io("cannot create " + dest.parent_path().string() + ": " + ec.message()));
  const fs::path staging =
      dest.parent_path() / ("." + dest.filename().string() + std::string(kIncompletePrefix) + std::string(uuid));
  discard_tree(staging);
  if (::mkdir(staging.c_str(), 0755) != 0) return fail(io_error("cannot create", staging, errno));
  auto copied = copy_checked(stored->manifest, stored->text, committed_dir(uuid), staging);
  if (copied) copied = rename_path(staging, dest);
  if (!copied) discard_tree(staging);
  return copied;
}

Status SharedFsStore::sweep_incomplete() {
  std::vector<fs::path> incomplete;
  std::error_code ec;
  for (fs::directory_iterator it(root_, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    if (it->path().filename().string().starts_with(kIncompletePrefix)) incomplete.push_back(it->path());
  }
  if (ec) return fail(Error::io("cannot list " + root_.string() + ": " + ec.message()));
  for (const fs::path& path : incomplete) {
    if (auto removed = remove_tree(path); !removed) return removed;
  }
  return {};
}

}  // namespace volador::checkpoints
