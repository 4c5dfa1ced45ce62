#include "runtime/sandbox/work_folders.hpp"

#include <sys/statvfs.h>

#include <cerrno>
#include <cstring>
#include <functional>

#include <fmt/format.h>

namespace volador::sandbox {

namespace fs = std::filesystem;

void WorkFolders::rank_ended(const fs::path& folder, bool failed, std::int64_t now_ms) {
  if (failed && options_.keep_failed.count() > 0) {
    kept_[folder] = now_ms + options_.keep_failed.count();
    return;
  }
  std::error_code ec;
  fs::remove_all(folder, ec);
  kept_.erase(folder);
}

ArchiveKey archive_key(std::string_view archive) { return {archive.size(), std::hash<std::string_view>{}(archive)}; }

void WorkFolders::keep_for_next(std::uint64_t worker, PreparedFolder folder) {
  worker_ended(worker);
  if (options_.reuse_clean) {
    spares_.insert_or_assign(worker, std::move(folder));
    return;
  }
  std::error_code ec;
  fs::remove_all(folder.path, ec);
}

std::optional<PreparedFolder> WorkFolders::reuse(std::uint64_t worker, const ArchiveKey& archive, const fs::path& dest) {
  auto spare = spares_.extract(worker);
  if (spare.empty()) return std::nullopt;
  auto& folder = spare.mapped();
  std::error_code ec;
  if (folder.archive == archive) fs::rename(folder.path, dest, ec);
  if (folder.archive != archive || ec) {
    fs::remove_all(folder.path, ec);
    return std::nullopt;
  }
  folder.path = dest;
  if (folder.contents.restore(dest, options_.worker_scratch)) return std::move(folder);
  fs::remove_all(dest, ec);
  return std::nullopt;
}

void WorkFolders::worker_ended(std::uint64_t worker) {
  auto spare = spares_.extract(worker);
  if (spare.empty()) return;
  std::error_code ec;
  fs::remove_all(spare.mapped().path, ec);
}

void WorkFolders::reap(std::int64_t now_ms) {
  std::erase_if(kept_, [now_ms](const auto& entry) {
    if (entry.second > now_ms) return false;
    std::error_code ec;
    fs::remove_all(entry.first, ec);
    fs::remove(entry.first.parent_path(), ec);  // its worker's home, once empty
    return true;
  });
}

void WorkFolders::reap_left_over(const fs::path& work_dir) const {
  std::error_code ec;
  const auto oldest_kept = fs::file_time_type::clock::now() - options_.keep_failed;
  for (const auto& home : fs::directory_iterator(work_dir / kWorkerHomes, ec)) {
    for (const auto& entry : fs::directory_iterator(home.path(), ec)) {
      if (!entry.is_directory(ec) || !entry.path().filename().string().starts_with("trial-")) continue;
      if (entry.last_write_time(ec) < oldest_kept && !ec) fs::remove_all(entry.path(), ec);
    }
    fs::remove(home.path(), ec);  // once empty
  }
}

std::optional<std::string> WorkFolders::refusal(const fs::path& work_dir, const Result<std::uint64_t>& free_bytes) const {
  if (!free_bytes) return "cannot tell the free space of the work folder: " + free_bytes.error().message;
  if (*free_bytes >= options_.min_free_bytes) return std::nullopt;
  return fmt::format("the work folder {} has {} MiB free, below the {} MiB (--min-free-disk) an agent needs to start a trial",
                     work_dir.string(), *free_bytes >> 20, options_.min_free_bytes >> 20);
}

Result<std::uint64_t> free_disk_bytes(const fs::path& path) {
  struct statvfs stats {};
  if (::statvfs(path.c_str(), &stats) != 0)
    return fail(Error::io(fmt::format("statvfs {}: {}", path.string(), std::strerror(errno))));
  return static_cast<std::uint64_t>(stats.f_bavail) * stats.f_frsize;
}

}  // namespace volador::sandbox
