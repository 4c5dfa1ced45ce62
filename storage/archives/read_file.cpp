// read_archive_file: the entries are read in order until the one named, whose
// content is read (a regular file only) while it stays within the limit.

#include <archive.h>
#include <archive_entry.h>

#include <filesystem>

#include "storage/archives/archive.hpp"
#include "storage/archives/libarchive_handles.hpp"

namespace volador::archives {
namespace {

// `name` without a leading "./" and empty or "." parts, as pack_directory names entries.
std::string normal_name(const std::string& name) {
  std::string out;
  for (const auto& part : std::filesystem::path(name)) {
    if (part.empty() || part == "." || part == "/") continue;
    out += (out.empty() ? "" : "/") + part.string();
  }
  return out;
}

Result<std::string> read_content(archive* a, const std::string& path, std::uint64_t max_bytes) {
  std::string content;
  std::string chunk(1 << 16, '\0');
  for (;;) {
    const la_ssize_t n = archive_read_data(a, chunk.data(), chunk.size());
    if (n < 0) return fail(Error::corruption("archive entry '" + path + "': " + error_of(a)));
    if (n == 0) return content;
    if (static_cast<std::uint64_t>(n) > max_bytes - content.size())
      return fail(Error::resource_exhausted("archive entry '" + path + "' is over the limit of " +
                                            std::to_string(max_bytes) + " bytes"));
    content.append(chunk.data(), static_cast<std::size_t>(n));
  }
}

}  // namespace

Result<std::optional<std::string>> read_archive_file(std::string_view bytes, std::string_view path,
                                                     std::uint64_t max_bytes) {
  ArchiveReader a(archive_read_new());
  archive_read_support_filter_gzip(a.get());
  archive_read_support_format_tar(a.get());
  archive_read_support_format_zip(a.get());
  if (archive_read_open_memory(a.get(), bytes.data(), bytes.size()) != ARCHIVE_OK)
    return fail(Error::corruption("not a gzip-compressed tar or zip archive: " + error_of(a.get())));
  const std::string wanted = normal_name(std::string(path));
  for (;;) {
    archive_entry* entry = nullptr;
    const int r = archive_read_next_header(a.get(), &entry);
    if (r == ARCHIVE_EOF) return std::optional<std::string>();
    if (r < ARCHIVE_WARN) return fail(Error::corruption("not a valid archive: " + error_of(a.get())));
    const char* name = archive_entry_pathname(entry);
    if (name == nullptr || normal_name(name) != wanted) continue;
    if (archive_entry_filetype(entry) != AE_IFREG || archive_entry_hardlink(entry) != nullptr)
      return std::optional<std::string>();
    auto content = read_content(a.get(), wanted, max_bytes);
    if (!content) return fail(content.error());
    return std::optional(std::move(*content));
  }
}

}  // namespace volador::archives
