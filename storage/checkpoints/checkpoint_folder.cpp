#include "storage/checkpoints/checkpoint_folder.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <string>
#include <vector>

#include "storage/checkpoints/fsync_pool.hpp"
#include "storage/checkpoints/posix_file.hpp"

namespace volador::checkpoints {
namespace {

namespace fs = std::filesystem;

struct FolderTree {
  std::vector<std::string> files;  // relative, `/`-separated, sorted
  std::vector<fs::path> folders;   // every subfolder, parents first
};

Status add_entry(const fs::path& dir, const fs::directory_entry& entry, FolderTree& tree) {
  std::error_code ec;
  const fs::file_status status = entry.symlink_status(ec);
  if (ec) return fail(Error::io("cannot read " + entry.path().string() + ": " + ec.message()));
  const std::string relative = entry.path().lexically_relative(dir).generic_string();
  if (fs::is_directory(status)) {
    tree.folders.push_back(entry.path());
  } else if (fs::is_regular_file(status) && relative != kManifestFileName) {
    tree.files.push_back(relative);
  } else {
    const char* what = fs::is_regular_file(status) ? "a reserved name"
                       : fs::is_symlink(status)    ? "a symlink"
                                                   : "a special file";
    return fail(Error::invalid_argument("checkpoint file '" + relative + "' in " + dir.string() + " is " + what +
                                        "; a checkpoint holds regular files and folders only"));
  }
  return {};
}

Result<FolderTree> list_tree(const fs::path& dir) {
  FolderTree tree;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (auto added = add_entry(dir, *it, tree); !added) return fail(added.error());
  }
  if (ec) return fail(Error::io("cannot list " + dir.string() + ": " + ec.message()));
  std::ranges::sort(tree.files);
  return tree;
}

// Open files and folders that become durable together, in groups of at most
// kGroup (so that a checkpoint of many files holds few descriptors at once).
class DurableGroup {
 public:
  static constexpr std::size_t kGroup = 64;

  // Holds `fd` (for `path`) until the next flush; flushes first when full.
  Status add(UniqueFd fd, fs::path path) {
    if (fds_.size() == kGroup)
      if (auto flushed = flush(); !flushed) return flushed;
    fds_.push_back(std::move(fd));
    paths_.push_back(std::move(path));
    return {};
  }

  // fsyncs everything held, at once (FsyncPool), then closes it.
  Status flush() {
    std::vector<FsyncPool::Target> targets;
    for (std::size_t i = 0; i < fds_.size(); ++i) targets.push_back({fds_[i].get(), &paths_[i]});
    Status synced = FsyncPool::shared().fsync_all(targets);
    for (std::size_t i = 0; i < fds_.size(); ++i)
      if (auto closed = close_fd(fds_[i], paths_[i]); !closed && synced) synced = closed;
    fds_.clear();
    paths_.clear();
    return synced;
  }

 private:
  std::vector<UniqueFd> fds_;
  std::vector<fs::path> paths_;
};

// Digests one file and hands it to `durable` to be made durable.
Result<ManifestFile> seal_file(const fs::path& dir, const std::string& relative, DurableGroup& durable) {
  const fs::path path = dir / relative;
  auto fd = open_fd(path, O_RDONLY);
  if (!fd) return fail(fd.error());
  auto digest = digest_fd(fd->get(), path);
  if (!digest) return fail(digest.error());
  if (auto held = durable.add(std::move(*fd), path); !held) return fail(held.error());
  return ManifestFile{.path = relative, .size = digest->size, .sha256 = std::move(digest->sha256)};
}

// Writes manifest.json into `dir` and hands it and `dir` to `durable`.
Status write_manifest(const fs::path& dir, const CheckpointManifest& manifest, DurableGroup& durable) {
  auto text = manifest_to_json(manifest);
  if (!text) return fail(text.error());
  const fs::path path = dir / kManifestFileName;
  auto fd = open_fd(path, O_WRONLY | O_CREAT | O_EXCL);
  if (!fd) return fail(fd.error());
  if (auto written = write_all(fd->get(), *text, path); !written) return written;
  if (auto held = durable.add(std::move(*fd), path); !held) return held;
  auto folder = open_fd(dir, O_RDONLY | O_DIRECTORY);
  if (!folder) return fail(folder.error());
  return durable.add(std::move(*folder), dir);
}

std::int64_t now_unix_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

Error mismatch(const fs::path& path, const std::string& what) {
  return Error::corruption("checkpoint file " + path.string() + " " + what);
}

}  // namespace

Result<CheckpointManifest> seal_folder(const fs::path& dir, std::string_view uuid) {
  auto tree = list_tree(dir);
  if (!tree) return fail(tree.error());
  CheckpointManifest manifest;
  manifest.uuid = uuid;
  manifest.created_unix_ms = now_unix_ms();
  DurableGroup durable;
  for (const std::string& relative : tree->files) {
    auto file = seal_file(dir, relative, durable);
    if (!file) return fail(file.error());
    manifest.total_bytes += file->size;
    manifest.files.push_back(std::move(*file));
  }
  for (const fs::path& folder : tree->folders) {
    auto fd = open_fd(folder, O_RDONLY | O_DIRECTORY);
    if (!fd) return fail(fd.error());
    if (auto held = durable.add(std::move(*fd), folder); !held) return fail(held.error());
  }
  if (auto written = write_manifest(dir, manifest, durable); !written) return fail(written.error());
  if (auto flushed = durable.flush(); !flushed) return fail(flushed.error());
  return manifest;
}

Status check_file(const fs::path& dir, const ManifestFile& file, const ChunkSink& sink) {
  const fs::path path = dir / file.path;
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(path, ec);
  if (!fs::exists(status)) return fail(mismatch(path, "is missing"));
  if (!fs::is_regular_file(status)) return fail(mismatch(path, "is not a regular file"));
  auto fd = open_fd(path, O_RDONLY);
  if (!fd) return fail(fd.error());
  struct stat info {};
  if (::fstat(fd->get(), &info) != 0) return fail(io_error("cannot stat", path, errno));
  if (static_cast<std::uint64_t>(info.st_size) != file.size) {
    return fail(mismatch(path, "has " + std::to_string(info.st_size) + " bytes; the manifest says " +
                                   std::to_string(file.size)));
  }
  auto digest = digest_fd(fd->get(), path, sink);
  if (!digest) return fail(digest.error());
  if (digest->sha256 != file.sha256) return fail(mismatch(path, "fails its SHA-256 check"));
  return {};
}

Status copy_checked(const CheckpointManifest& manifest, std::string_view manifest_text, const fs::path& from,
                    const fs::path& to) {
  for (const ManifestFile& file : manifest.files) {
    const fs::path target = to / file.path;
    std::error_code ec;
    fs::create_directories(target.parent_path(), ec);
    if (ec) return fail(Error::io("cannot create " + target.parent_path().string() + ": " + ec.message()));
    auto out = open_fd(target, O_WRONLY | O_CREAT | O_EXCL);
    if (!out) return fail(out.error());
    const int out_fd = out->get();
    auto copied = check_file(from, file, [&](std::span<const char> chunk) { return write_all(out_fd, chunk, target); });
    if (!copied) return copied;
    if (auto closed = close_fd(*out, target); !closed) return closed;
  }
  return write_new_file_durably(to / kManifestFileName, manifest_text);
}

}  // namespace volador::checkpoints
