// pack_directory / stream_directory: a folder -> deterministic gzip-compressed
// pax tar, in memory or streamed.
// Entries are written in sorted path order with fixed metadata (mtime 0,
// owner 0, mode 0755/0644, no gzip timestamp), so the same tree always packs
// to the same bytes.

#include <archive.h>
#include <archive_entry.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <fstream>
#include <memory>
#include <vector>

#include "storage/archives/archive.hpp"
#include "storage/archives/libarchive_handles.hpp"
#include "storage/archives/ignore_rules.hpp"

namespace volador::archives {
namespace {

namespace fs = std::filesystem;

struct Item {
  std::string relative;  // with `/` separators
  fs::path path;
  bool directory = false;
  bool executable = false;
  std::uint64_t size = 0;
};

la_ssize_t write_to_sink(archive* a, void* client, const void* buffer, size_t length) {
  const auto& write = *static_cast<const ChunkWriter*>(client);
  if (!write(std::string_view(static_cast<const char*>(buffer), length))) {
    archive_set_error(a, ECANCELED, "the receiver of the archive stopped taking it");
    return -1;
  }
  return static_cast<la_ssize_t>(length);
}

std::string mib(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  return text;
}

Status walk(const fs::path& root, const std::string& relative_dir, const IgnoreRules& rules, std::vector<Item>& items);

// Adds one folder entry (and what is under it) or one file to `items`.
Status add_item(const fs::path& root, const fs::path& path, std::string relative, const IgnoreRules& rules,
                std::vector<Item>& items) {
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(path, ec);
  if (ec) return fail(Error::io("cannot read " + path.string() + ": " + ec.message()));
  const bool directory = fs::is_directory(status);
  if (rules.ignored(relative, directory)) return {};
  if (directory) {
    items.push_back({.relative = relative, .path = path, .directory = true});
    return walk(root, relative, rules, items);
  }
  if (!fs::is_regular_file(status)) {
    return fail(Error::invalid_argument(
        "'" + relative + "' in " + root.string() + " is " + (fs::is_symlink(status) ? "a symlink" : "a special file") +
        "; a model definition holds only regular files and folders (copy the content in, or list the path in " +
        std::string(IgnoreRules::kFileName) + ")"));
  }
  const std::uint64_t size = fs::file_size(path, ec);
  if (ec) return fail(Error::io("cannot read " + path.string() + ": " + ec.message()));
  constexpr auto any_exec = fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec;
  items.push_back({.relative = std::move(relative), .path = path, .directory = false,
                   .executable = (status.permissions() & any_exec) != fs::perms::none, .size = size});
  return {};
}

// Appends the entries under `root`/`relative_dir` in sorted name order.
Status walk(const fs::path& root, const std::string& relative_dir, const IgnoreRules& rules, std::vector<Item>& items) {
  const fs::path dir = relative_dir.empty() ? root : root / relative_dir;
  std::error_code ec;
  std::vector<std::string> names;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    names.push_back(it->path().filename().string());
  }
  if (ec) return fail(Error::io("cannot list " + dir.string() + ": " + ec.message()));
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    auto added = add_item(root, dir / name, relative_dir.empty() ? name : relative_dir + "/" + name, rules, items);
    if (!added) return added;
  }
  return {};
}

// `what` says which limit was passed, e.g. "packs to more than the 96.0 MiB limit".
Error too_large(const fs::path& dir, const std::string& what, std::vector<Item> items) {
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.size > b.size; });
  std::string largest;
  for (std::size_t i = 0; i < std::min<std::size_t>(3, items.size()) && !items[i].directory; ++i) {
    largest += (i ? ", " : "") + items[i].relative + " (" + mib(items[i].size) + ")";
  }
  return Error::resource_exhausted(
      "the model definition in " + dir.string() + " " + what + "; largest files: " + largest +
      ". Move data sets out of the folder and mount them into the trial (bind_mounts), or list them in " +
      std::string(IgnoreRules::kFileName));
}

std::uint64_t unpacked_size(const std::vector<Item>& items) {
  std::uint64_t total = 0;
  for (const Item& item : items) total += item.size;
  return total;
}

Status write_entry(archive* a, const Item& item) {
  ArchiveEntry entry(archive_entry_new());
  archive_entry_set_pathname(entry.get(), item.relative.c_str());
  archive_entry_set_filetype(entry.get(), item.directory ? AE_IFDIR : AE_IFREG);
  archive_entry_set_perm(entry.get(), item.directory || item.executable ? 0755 : 0644);
  archive_entry_set_size(entry.get(), static_cast<la_int64_t>(item.directory ? 0 : item.size));
  archive_entry_set_mtime(entry.get(), 0, 0);
  if (archive_write_header(a, entry.get()) < ARCHIVE_WARN) {
    return fail(Error::io("cannot pack " + item.relative + ": " + error_of(a)));
  }
  if (item.directory) return {};
  std::ifstream in(item.path, std::ios::binary);
  if (!in) return fail(Error::io("cannot open " + item.path.string()));
  std::vector<char> buffer(1 << 16);
  std::uint64_t copied = 0;
  while (in && copied < item.size) {
    in.read(buffer.data(), static_cast<std::streamsize>(std::min<std::uint64_t>(buffer.size(), item.size - copied)));
    if (in.gcount() > 0 && archive_write_data(a, buffer.data(), static_cast<size_t>(in.gcount())) < 0) {
      return fail(Error::io("cannot pack " + item.relative + ": " + error_of(a)));
    }
    copied += static_cast<std::uint64_t>(in.gcount());
  }
  if (copied != item.size) return fail(Error::io("cannot read " + item.path.string() + " (did it change while packing?)"));
  return {};
}

ArchiveWriter open_writer(const ChunkWriter& sink) {
  ArchiveWriter a(archive_write_new());
  archive_write_set_format_pax_restricted(a.get());
  archive_write_add_filter_gzip(a.get());
  archive_write_set_filter_option(a.get(), "gzip", "timestamp", nullptr);  // no time in the header
  archive_write_set_bytes_in_last_block(a.get(), 1);                       // no padding to 10 KiB
  if (archive_write_open(a.get(), const_cast<ChunkWriter*>(&sink), nullptr, write_to_sink, nullptr) != ARCHIVE_OK)
    return nullptr;
  return a;
}

// The entries under `dir` in archive order, honouring its ignore file.
Result<std::vector<Item>> collect(const fs::path& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return fail(Error::not_found("folder " + dir.string() + " does not exist"));
  if (!fs::is_directory(dir, ec)) return fail(Error::invalid_argument(dir.string() + " is not a folder"));
  auto rules = IgnoreRules::load(dir);
  if (!rules) return fail(rules.error());
  std::vector<Item> items;
  if (auto walked = walk(dir, "", *rules, items); !walked) return fail(walked.error());
  return items;
}

Status write_archive(const std::vector<Item>& items, const ChunkWriter& write) {
  auto writer = open_writer(write);
  if (!writer) return fail(Error::internal("cannot start a gzip tar writer"));
  for (const Item& item : items)
    if (auto written = write_entry(writer.get(), item); !written) return written;
  if (archive_write_close(writer.get()) != ARCHIVE_OK)
    return fail(Error::io("cannot finish the archive: " + error_of(writer.get())));
  return {};
}

}  // namespace

Status stream_directory(const std::filesystem::path& dir, const ChunkWriter& write) {
  auto items = collect(dir);
  if (!items) return fail(items.error());
  return write_archive(*items, write);
}

Result<std::string> pack_directory(const std::filesystem::path& dir, std::uint64_t max_bytes,
                                   std::uint64_t max_unpacked_bytes) {
  auto items = collect(dir);
  if (!items) {
    if (items.error().code == ErrorCode::not_found)
      return fail(Error::not_found("model definition folder " + dir.string() + " does not exist"));
    return fail(items.error());
  }
  if (const auto unpacked = unpacked_size(*items); unpacked > max_unpacked_bytes)
    return fail(too_large(dir,
                          "holds " + mib(unpacked) + " of files, more than the " + mib(max_unpacked_bytes) +
                              " a trial's copy may unpack to",
                          std::move(*items)));
  std::string bytes;
  bool exceeded = false;
  auto written = write_archive(*items, [&](std::string_view chunk) {
    exceeded = bytes.size() + chunk.size() > max_bytes;
    if (!exceeded) bytes.append(chunk);
    return !exceeded;
  });
  if (exceeded) return fail(too_large(dir, "packs to more than the " + mib(max_bytes) + " limit", std::move(*items)));
  if (!written) return fail(written.error());
  return bytes;
}

}  // namespace volador::archives
