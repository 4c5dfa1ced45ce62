#include <catch2/catch.hpp>

#include <archive.h>
#include <archive_entry.h>
#include <unistd.h>

#include <cerrno>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "storage/archives/archive.hpp"

namespace fs = std::filesystem;
using namespace volador;
using namespace volador::archives;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    static std::atomic<int> counter{0};
    std::random_device random;
    path = fs::temp_directory_path() / ("volador-archive-test-" + std::to_string(::getpid()) + "-" +
                                        std::to_string(counter++) + "-" + std::to_string(random()));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

void write_file(const fs::path& path, const std::string& content, fs::perms perms = static_cast<fs::perms>(0644)) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << content;
  fs::permissions(path, perms);
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string random_bytes(std::size_t size, unsigned seed) {
  std::mt19937 random(seed);
  std::string bytes(size, '\0');
  for (char& c : bytes) c = static_cast<char>(random());
  return bytes;
}

// Relative path -> "dir" or "file <mode> <content>", for comparing trees.
std::map<std::string, std::string> snapshot(const fs::path& root) {
  std::map<std::string, std::string> tree;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    const std::string relative = fs::relative(entry.path(), root).generic_string();
    if (entry.is_directory()) {
      tree[relative] = "dir";
    } else {
      const auto mode = static_cast<unsigned>(entry.status().permissions() & fs::perms::mask);
      tree[relative] = "file " + std::to_string(mode) + " " + read_file(entry.path());
    }
  }
  return tree;
}

void make_project(const fs::path& root) {
  write_file(root / "model_def.py", "import torch\n");
  write_file(root / "startup-hook.sh", "#!/bin/sh\necho hi\n", static_cast<fs::perms>(0700));
  write_file(root / "pkg" / "sub" / "layers.py", "x = 1\n");
  write_file(root / "pkg" / "weights.bin", random_bytes(100 << 10, 3) + std::string(10, '\0'));
  write_file(root / "private.cfg", "k=v\n", static_cast<fs::perms>(0600));
  fs::create_directories(root / "empty" / "nested_empty");
}

struct Entry {
  std::string name{};
  unsigned type = AE_IFREG;
  std::string content{};
  std::int64_t declared_size = -1;  // -1: content's size
  std::string symlink{};
  std::string hardlink{};
};

la_ssize_t append_output(archive*, void* client, const void* buffer, size_t length) {
  static_cast<std::string*>(client)->append(static_cast<const char*>(buffer), length);
  return static_cast<la_ssize_t>(length);
}

// A gzip-compressed pax archive with exactly these entries, however hostile.
std::string build_archive(const std::vector<Entry>& entries) {
  std::string out;
  archive* a = archive_write_new();
  archive_write_set_format_pax_restricted(a);
  archive_write_add_filter_gzip(a);
  REQUIRE(archive_write_open(a, &out, nullptr, append_output, nullptr) == ARCHIVE_OK);
  for (const Entry& e : entries) {
    archive_entry* entry = archive_entry_new();
    archive_entry_set_pathname(entry, e.name.c_str());
    archive_entry_set_filetype(entry, e.type);
    archive_entry_set_perm(entry, 0644);
    archive_entry_set_size(entry, e.declared_size >= 0 ? e.declared_size : static_cast<la_int64_t>(e.content.size()));
    if (!e.symlink.empty()) archive_entry_set_symlink(entry, e.symlink.c_str());
    if (!e.hardlink.empty()) archive_entry_set_hardlink(entry, e.hardlink.c_str());
    REQUIRE(archive_write_header(a, entry) == ARCHIVE_OK);
    if (!e.content.empty()) archive_write_data(a, e.content.data(), e.content.size());
    archive_entry_free(entry);
  }
  archive_write_free(a);
  return out;
}

// Takes the output until `closed`, then fails every write.
struct HeaderSink {
  std::string bytes;
  bool closed = false;
};

la_ssize_t append_until_closed(archive* a, void* client, const void* buffer, size_t length) {
  auto* sink = static_cast<HeaderSink*>(client);
  if (sink->closed) {
    archive_set_error(a, EIO, "closed");
    return -1;
  }
  sink->bytes.append(static_cast<const char*>(buffer), length);
  return static_cast<la_ssize_t>(length);
}

// An uncompressed tar holding only the header of one file that declares `size`
// bytes: the data (and its padding) is never built.
std::string header_only_archive(const std::string& name, std::int64_t size) {
  HeaderSink sink;
  archive* a = archive_write_new();
  archive_write_set_format_pax_restricted(a);
  archive_write_set_bytes_per_block(a, 0);  // unbuffered: the header is out after write_header
  REQUIRE(archive_write_open(a, &sink, nullptr, append_until_closed, nullptr) == ARCHIVE_OK);
  archive_entry* entry = archive_entry_new();
  archive_entry_set_pathname(entry, name.c_str());
  archive_entry_set_filetype(entry, AE_IFREG);
  archive_entry_set_perm(entry, 0644);
  archive_entry_set_size(entry, size);
  REQUIRE(archive_write_header(a, entry) == ARCHIVE_OK);
  archive_entry_free(entry);
  sink.closed = true;  // the padding to `size` fails at its first write
  archive_write_free(a);
  return sink.bytes;
}

}  // namespace

TEST_CASE("a project tree round-trips with folders, empty folders, modes and binary content", "[archives]") {
  TempDir tmp;
  make_project(tmp.path / "src");
  auto packed = pack_directory(tmp.path / "src");
  REQUIRE(packed);
  REQUIRE(unpack_archive(*packed, tmp.path / "dest"));

  auto tree = snapshot(tmp.path / "dest");
  auto expected = snapshot(tmp.path / "src");
  expected["startup-hook.sh"] = "file " + std::to_string(0755) + " #!/bin/sh\necho hi\n";  // 0700 -> 0755
  expected["private.cfg"] = "file " + std::to_string(0644) + " k=v\n";                     // 0600 -> 0644
  CHECK(tree == expected);
  CHECK(tree.count("empty/nested_empty") == 1);
  CHECK(tree.at("pkg/weights.bin").size() > (100 << 10));
}

TEST_CASE("the same tree always packs to the same bytes", "[archives]") {
  TempDir tmp;
  make_project(tmp.path / "a");
  // The same tree created in another order, with other timestamps.
  fs::create_directories(tmp.path / "b" / "empty" / "nested_empty");
  write_file(tmp.path / "b" / "private.cfg", "k=v\n", static_cast<fs::perms>(0640));
  write_file(tmp.path / "b" / "pkg" / "weights.bin", random_bytes(100 << 10, 3) + std::string(10, '\0'));
  write_file(tmp.path / "b" / "pkg" / "sub" / "layers.py", "x = 1\n");
  write_file(tmp.path / "b" / "startup-hook.sh", "#!/bin/sh\necho hi\n", static_cast<fs::perms>(0755));
  write_file(tmp.path / "b" / "model_def.py", "import torch\n");
  fs::last_write_time(tmp.path / "b" / "model_def.py", fs::file_time_type::clock::now() - std::chrono::hours(48));

  auto first = pack_directory(tmp.path / "a");
  auto second = pack_directory(tmp.path / "a");
  auto other = pack_directory(tmp.path / "b");
  REQUIRE((first && second && other));
  CHECK(*first == *second);
  CHECK(*first == *other);
  REQUIRE(first->size() > 10);
  CHECK(first->substr(4, 4) == std::string(4, '\0'));  // no gzip timestamp
}

TEST_CASE("a folder that packs over the limit is refused, naming the limit and the largest files", "[archives]") {
  TempDir tmp;
  write_file(tmp.path / "src" / "model_def.py", "pass\n");
  write_file(tmp.path / "src" / "data" / "train.bin", random_bytes(300 << 10, 1));
  write_file(tmp.path / "src" / "data" / "test.bin", random_bytes(120 << 10, 2));

  auto packed = pack_directory(tmp.path / "src", 128 << 10);
  REQUIRE_FALSE(packed);
  CHECK(packed.error().code == ErrorCode::resource_exhausted);
  const std::string& message = packed.error().message;
  CHECK_THAT(message, Catch::Contains("0.1 MiB limit"));
  CHECK_THAT(message, Catch::Contains("data/train.bin (0.3 MiB), data/test.bin (0.1 MiB)"));
  CHECK_THAT(message, Catch::Contains("mount"));
  CHECK_THAT(message, Catch::Contains(".voladorignore"));

  CHECK(pack_directory(tmp.path / "src", 1 << 20));
}

TEST_CASE("a folder that packs small but unpacks over the limit is refused when packing and not at launch",
          "[archives]") {
  TempDir tmp;
  write_file(tmp.path / "src" / "model_def.py", "pass\n");
  write_file(tmp.path / "src" / "zeros.bin", std::string(700 << 10, '\0'));  // compresses to a few KiB
  write_file(tmp.path / "src" / "more_zeros.bin", std::string(500 << 10, '\0'));

  auto packed = pack_directory(tmp.path / "src", 1 << 20, 1 << 20);
  REQUIRE_FALSE(packed);
  CHECK(packed.error().code == ErrorCode::resource_exhausted);
  CHECK_THAT(packed.error().message, Catch::Contains("holds 1.2 MiB of files, more than the 1.0 MiB a trial's copy "
                                                     "may unpack to"));
  CHECK_THAT(packed.error().message, Catch::Contains("zeros.bin (0.7 MiB), more_zeros.bin (0.5 MiB)"));

  // What packing accepts, unpacking accepts too.
  auto accepted = pack_directory(tmp.path / "src", 1 << 20, 2 << 20);
  REQUIRE(accepted);
  CHECK(accepted->size() < (64 << 10));
  CHECK(unpack_archive(*accepted, tmp.path / "dest", 2 << 20));
}

TEST_CASE("symlinks in the folder are refused with their path unless ignored", "[archives]") {
  TempDir tmp;
  write_file(tmp.path / "src" / "model_def.py", "pass\n");
  fs::create_directories(tmp.path / "src" / "pkg");
  fs::create_symlink("/etc/passwd", tmp.path / "src" / "pkg" / "link");

  auto packed = pack_directory(tmp.path / "src");
  REQUIRE_FALSE(packed);
  CHECK(packed.error().code == ErrorCode::invalid_argument);
  CHECK_THAT(packed.error().message, Catch::Contains("'pkg/link'") && Catch::Contains("symlink"));

  write_file(tmp.path / "src" / ".voladorignore", "link\n");
  CHECK(pack_directory(tmp.path / "src"));
}

TEST_CASE(".voladorignore leaves out what it names", "[archives]") {
  TempDir tmp;
  const fs::path src = tmp.path / "src";
  write_file(src / ".voladorignore",
             "# data sets are mounted\n"
             "data/\n"
             "*.ckpt\n"
             "/notes.txt\n"
             "pkg/gen_*.py\n"
             "\n"
             "cache/  \n");
  write_file(src / "model_def.py", "pass\n");
  write_file(src / "data" / "train.csv", "1,2\n");
  write_file(src / "pkg" / "data", "a file named data is kept\n");
  write_file(src / "pkg" / "model.ckpt", "weights");
  write_file(src / "deep" / "er" / "old.ckpt", "weights");
  write_file(src / "notes.txt", "top-level notes are ignored");
  write_file(src / "pkg" / "notes.txt", "nested notes are kept");
  write_file(src / "pkg" / "gen_a.py", "generated");
  write_file(src / "pkg" / "sub" / "gen_b.py", "kept: the pattern is anchored");
  write_file(src / "pkg" / "cache" / "x", "ignored");

  auto packed = pack_directory(src);
  REQUIRE(packed);
  REQUIRE(unpack_archive(*packed, tmp.path / "dest"));
  std::vector<std::string> files;
  for (const auto& [path, what] : snapshot(tmp.path / "dest")) files.push_back(path);
  CHECK(files == std::vector<std::string>{".voladorignore", "deep", "deep/er", "model_def.py", "pkg", "pkg/data",
                                          "pkg/notes.txt", "pkg/sub", "pkg/sub/gen_b.py"});
}

TEST_CASE("packing a missing folder is not_found", "[archives]") {
  TempDir tmp;
  auto packed = pack_directory(tmp.path / "nope");
  REQUIRE_FALSE(packed);
  CHECK(packed.error().code == ErrorCode::not_found);
}

TEST_CASE("hostile archives are refused before anything is written outside dest", "[archives]") {
  TempDir tmp;
  const fs::path outside = tmp.path / "outside";
  struct Case {
    std::string label;
    std::vector<Entry> entries;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"parent", {{.name = "ok.txt", .content = "fine"}, {.name = "../evil", .content = "x"}}, "'../evil'"},
      {"nested parent", {{.name = "a/../../evil", .content = "x"}}, "'a/../../evil'"},
      {"absolute", {{.name = outside.string() + "/abs", .content = "x"}}, "absolute"},
      {"symlink", {{.name = "link", .type = AE_IFLNK, .symlink = outside.string()}, {.name = "link/x", .content = "x"}},
       "'link' is a symlink"},
      {"hardlink", {{.name = "ok.txt", .content = "fine"}, {.name = "hard", .hardlink = "/etc/passwd"}},
       "'hard' is a hard link"},
      {"device", {{.name = "dev", .type = AE_IFCHR}}, "'dev' is a device"},
  };
  fs::create_directories(outside);
  for (const Case& c : cases) {
    INFO(c.label);
    const fs::path dest = tmp.path / ("dest-" + c.label);
    auto refused = unpack_archive(build_archive(c.entries), dest);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == ErrorCode::invalid_argument);
    CHECK_THAT(refused.error().message, Catch::Contains(c.message));
    CHECK_FALSE(fs::exists(tmp.path / "evil"));
    CHECK(fs::is_empty(outside));
    CHECK_FALSE(fs::exists(dest / "link"));
    CHECK_FALSE(fs::exists(dest / "hard"));
    CHECK_FALSE(fs::exists(dest / "dev"));
  }
}

TEST_CASE("an archive that unpacks over the limit is refused before the entry is written", "[archives]") {
  TempDir tmp;
  SECTION("a huge declared size") {
    auto refused = unpack_archive(header_only_archive("huge.bin", 64ll << 30), tmp.path / "dest");
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == ErrorCode::resource_exhausted);
    CHECK_THAT(refused.error().message, Catch::Contains("'huge.bin'"));
    CHECK_FALSE(fs::exists(tmp.path / "dest" / "huge.bin"));
  }
  SECTION("the total of several entries") {
    const std::string part(600 << 10, 'x');
    auto archive = build_archive({{.name = "one", .content = part}, {.name = "two", .content = part}});
    auto refused = unpack_archive(archive, tmp.path / "dest", 1 << 20);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == ErrorCode::resource_exhausted);
    CHECK_THAT(refused.error().message, Catch::Contains("'two'") && Catch::Contains("1 MiB"));
    CHECK(fs::exists(tmp.path / "dest" / "one"));
    CHECK_FALSE(fs::exists(tmp.path / "dest" / "two"));
  }
}

TEST_CASE("bytes that are not an archive give a clear error", "[archives]") {
  TempDir tmp;
  auto garbage = unpack_archive("this is not an archive at all, just some text", tmp.path / "dest");
  REQUIRE_FALSE(garbage);
  CHECK(garbage.error().code == ErrorCode::corruption);
  CHECK_THAT(garbage.error().message, Catch::Contains("not a") && Catch::Contains("tar or zip archive"));

  write_file(tmp.path / "src" / "big.bin", random_bytes(64 << 10, 5));
  auto packed = pack_directory(tmp.path / "src");
  REQUIRE(packed);
  auto truncated = unpack_archive(packed->substr(0, packed->size() / 2), tmp.path / "dest2");
  REQUIRE_FALSE(truncated);
  CHECK(truncated.error().code == ErrorCode::corruption);
}

TEST_CASE("streaming a folder gives the bytes packing it gives and stops when the receiver does", "[archives]") {
  TempDir tmp;
  make_project(tmp.path / "src");
  auto packed = pack_directory(tmp.path / "src");
  REQUIRE(packed);
  std::string streamed;
  std::size_t chunks = 0;
  REQUIRE(stream_directory(tmp.path / "src", [&](std::string_view chunk) {
    streamed.append(chunk);
    ++chunks;
    return true;
  }));
  CHECK(streamed == *packed);
  CHECK(chunks > 1);

  auto stopped = stream_directory(tmp.path / "src", [](std::string_view) { return false; });
  REQUIRE_FALSE(stopped);
  CHECK(stopped.error().code == ErrorCode::io);
}

TEST_CASE("a zip archive as a browser uploads a project unpacks like a tar", "[archives]") {
  TempDir tmp;
  std::string zip;
  archive* a = archive_write_new();
  archive_write_set_format_zip(a);
  REQUIRE(archive_write_open(a, &zip, nullptr, append_output, nullptr) == ARCHIVE_OK);
  for (const auto& [name, content] : std::map<std::string, std::string>{{"model_def.py", "x = 1\n"}, {"pkg/a.py", "y = 2\n"}}) {
    archive_entry* entry = archive_entry_new();
    archive_entry_set_pathname(entry, name.c_str());
    archive_entry_set_filetype(entry, AE_IFREG);
    archive_entry_set_perm(entry, 0644);
    archive_entry_set_size(entry, static_cast<la_int64_t>(content.size()));
    REQUIRE(archive_write_header(a, entry) == ARCHIVE_OK);
    archive_write_data(a, content.data(), content.size());
    archive_entry_free(entry);
  }
  archive_write_free(a);
  REQUIRE(unpack_archive(zip, tmp.path / "dest"));
  CHECK(read_file(tmp.path / "dest" / "model_def.py") == "x = 1\n");
  CHECK(read_file(tmp.path / "dest" / "pkg" / "a.py") == "y = 2\n");
}

TEST_CASE("one file is read out of a packed project by its relative path, without unpacking", "[archives]") {
  TempDir tmp;
  write_file(tmp.path / "src" / "model_def.py", "import torch\n");
  write_file(tmp.path / "src" / "pkg" / "trial.py", random_bytes(100'000, 3));
  auto packed = pack_directory(tmp.path / "src");
  REQUIRE(packed);
  for (const char* path : {"model_def.py", "./model_def.py"}) {
    auto found = read_archive_file(*packed, path, 1 << 20);
    REQUIRE(found);
    CHECK(*found == std::optional<std::string>("import torch\n"));
  }
  auto nested = read_archive_file(*packed, "pkg/trial.py", 1 << 20);
  REQUIRE(nested);
  CHECK(*nested == random_bytes(100'000, 3));
  for (const char* absent : {"absent.py", "pkg", "trial.py"}) {
    auto missing = read_archive_file(*packed, absent, 1 << 20);
    REQUIRE(missing);
    CHECK_FALSE(missing->has_value());
  }
  auto too_big = read_archive_file(*packed, "pkg/trial.py", 1000);
  REQUIRE_FALSE(too_big);
  CHECK(too_big.error().code == ErrorCode::resource_exhausted);
  auto not_archive = read_archive_file("not an archive", "model_def.py", 1000);
  REQUIRE_FALSE(not_archive);
  CHECK(not_archive.error().code == ErrorCode::corruption);
}
