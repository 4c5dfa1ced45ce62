// unpack_archive: every entry is checked before anything is written for it:
// relative path without "..", regular file or folder only, and the running
// total of declared sizes within the limit. Files are created with
// O_NOFOLLOW and get mode 0755 (any executable bit) or 0644.

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "storage/archives/archive.hpp"
#include "storage/archives/libarchive_handles.hpp"

namespace volador::archives {
namespace {

namespace fs = std::filesystem;

struct FileCloser {
  int fd;
  ~FileCloser() { ::close(fd); }
};

Error refuse(const std::string& name, const std::string& why) {
  return Error::invalid_argument("archive entry '" + name + "' " + why);
}

// The entry's path relative to the destination; nullopt for the root itself ("./").
Result<std::optional<fs::path>> safe_relative_path(const std::string& name) {
  if (name.empty()) return fail(Error::corruption("archive entry without a path"));
  if (name.front() == '/') return fail(refuse(name, "has an absolute path"));
  fs::path relative;
  for (const auto& part : fs::path(name)) {
    if (part == "..") return fail(refuse(name, "leaves the destination folder (contains '..')"));
    if (part != "." && !part.empty()) relative /= part;
  }
  if (relative.empty()) return std::nullopt;
  return relative;
}

Status check_type(archive_entry* entry, const std::string& name) {
  if (archive_entry_hardlink(entry) != nullptr) return fail(refuse(name, "is a hard link"));
  const auto type = archive_entry_filetype(entry);
  if (type == AE_IFLNK) return fail(refuse(name, "is a symlink"));
  if (type != AE_IFREG && type != AE_IFDIR) return fail(refuse(name, "is a device, FIFO or socket"));
  return {};
}

Status check_size(archive_entry* entry, const std::string& name, std::uint64_t& total, std::uint64_t max_bytes) {
  const la_int64_t size = archive_entry_size(entry);
  if (size < 0) return fail(refuse(name, "has a negative size"));
  if (static_cast<std::uint64_t>(size) > max_bytes - total) {
    return fail(Error::resource_exhausted("archive entry '" + name + "' (" + std::to_string(size) +
                                          " bytes) takes the unpacked model definition over its limit of " +
                                          std::to_string(max_bytes >> 20) + " MiB"));
  }
  total += static_cast<std::uint64_t>(size);
  return {};
}

Status write_all(int fd, const char* data, std::size_t size, const fs::path& path) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail(Error::io("cannot write " + path.string() + ": " + std::strerror(errno)));
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return {};
}

Status write_file(archive* a, archive_entry* entry, const std::string& name, const fs::path& path) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec) return fail(Error::io("cannot create the folder of " + path.string() + ": " + ec.message()));
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return fail(Error::io("cannot create " + path.string() + ": " + std::strerror(errno)));
  FileCloser closer{fd};
  std::vector<char> buffer(1 << 16);
  for (;;) {
    const la_ssize_t n = archive_read_data(a, buffer.data(), buffer.size());
    if (n == 0) break;
    if (n < 0) return fail(Error::corruption("archive entry '" + name + "': " + error_of(a)));
    if (auto written = write_all(fd, buffer.data(), static_cast<std::size_t>(n), path); !written) return written;
  }
  const mode_t mode = (archive_entry_perm(entry) & 0111) != 0 ? 0755 : 0644;
  if (::fchmod(fd, mode) != 0) return fail(Error::io("cannot set the mode of " + path.string() + ": " + std::strerror(errno)));
  return {};
}

Status write_folder(const fs::path& path) {
  std::error_code ec;
  fs::create_directories(path, ec);
  if (!ec) fs::permissions(path, static_cast<fs::perms>(0755), ec);
  if (ec) return fail(Error::io("cannot create " + path.string() + ": " + ec.message()));
  return {};
}

// Checks one entry, then writes it under `dest`.
Status unpack_entry(archive* a, archive_entry* entry, const fs::path& dest, std::uint64_t& total,
                    std::uint64_t max_bytes) {
  const char* raw_name = archive_entry_pathname(entry);
  const std::string name = raw_name == nullptr ? "" : raw_name;
  auto relative = safe_relative_path(name);
  if (!relative) return fail(relative.error());
  if (auto typed = check_type(entry, name); !typed) return typed;
  if (auto sized = check_size(entry, name, total, max_bytes); !sized) return sized;
  if (!*relative) return {};
  const fs::path path = dest / **relative;
  return archive_entry_filetype(entry) == AE_IFDIR ? write_folder(path) : write_file(a, entry, name, path);
}

}  // namespace

Status unpack_archive(std::string_view bytes, const std::filesystem::path& dest, std::uint64_t max_unpacked_bytes) {
  ArchiveReader a(archive_read_new());
  archive_read_support_filter_gzip(a.get());
  archive_read_support_format_tar(a.get());
  archive_read_support_format_zip(a.get());
  if (archive_read_open_memory(a.get(), bytes.data(), bytes.size()) != ARCHIVE_OK) {
    return fail(Error::corruption("not a gzip-compressed tar or zip archive: " + error_of(a.get())));
  }
  std::error_code ec;
  fs::create_directories(dest, ec);
  if (ec) return fail(Error::io("cannot create " + dest.string() + ": " + ec.message()));
  std::uint64_t total = 0;
  for (;;) {
    archive_entry* entry = nullptr;
    const int r = archive_read_next_header(a.get(), &entry);
    if (r == ARCHIVE_EOF) return {};
    if (r < ARCHIVE_WARN) {
      return fail(Error::corruption("not a valid gzip-compressed tar archive: " + error_of(a.get())));
    }
    if (auto unpacked = unpack_entry(a.get(), entry, dest, total, max_unpacked_bytes); !unpacked) return unpacked;
  }
}

}  // namespace volador::archives
