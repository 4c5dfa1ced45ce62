// The contract of KeyValueStore, run against both stores: byte order of keys,
// prefix scans and their bounds, the last key of a prefix, batches applied in
// order and all at once.

#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "storage/journal/memory_store.hpp"
#include "storage/journal/rocksdb_store.hpp"
#include "storage/journal/tests/journal_test_support.hpp"

using namespace volador;
using namespace volador::storage;
using namespace volador::storage::testing;

namespace {

struct RocksdbStoreUnderTest {
  TempDir tmp;
  std::unique_ptr<KeyValueStore> store = open_store();
  std::unique_ptr<KeyValueStore> open_store() {
    auto opened = RocksdbStore::open(tmp.journal());
    REQUIRE(opened);
    return std::move(*opened);
  }
};
struct MemoryStoreUnderTest {
  std::unique_ptr<KeyValueStore> store = std::make_unique<MemoryStore>();
};

using Entries = std::vector<std::pair<std::string, std::string>>;

Entries scanned(const KeyValueStore& store, std::string_view prefix, std::string_view start = {},
                std::size_t limit = 1000) {
  Entries entries;
  auto scan = store.scan(prefix, start, [&](std::string_view key, std::string_view value) -> Result<bool> {
    entries.emplace_back(key, value);
    return entries.size() < limit;
  });
  REQUIRE(scan);
  return entries;
}

void put_all(KeyValueStore& store, const Entries& entries) {
  KeyValueBatch batch;
  for (const auto& [key, value] : entries) batch.put(key, value);
  REQUIRE(store.write(batch));
}

const std::string kHigh = std::string(1, '\xff');
const std::string kZero = std::string(1, '\0');

}  // namespace

TEMPLATE_TEST_CASE("a key-value store orders keys by their bytes and scans exactly a prefix", "[store]",
                   RocksdbStoreUnderTest, MemoryStoreUnderTest) {
  TestType under_test;
  auto& store = *under_test.store;
  put_all(store, {{"a/" + kHigh, "high"}, {"a/" + kZero, "zero"}, {"a/m", "m"}, {"a", "bare"}, {"b/1", "next"},
                  {"a0", "after the slash"}});

  CHECK(scanned(store, "a/") == Entries{{"a/" + kZero, "zero"}, {"a/m", "m"}, {"a/" + kHigh, "high"}});
  CHECK(scanned(store, "a/", "a/m") == Entries{{"a/m", "m"}, {"a/" + kHigh, "high"}});
  CHECK(scanned(store, "a/", {}, 1) == Entries{{"a/" + kZero, "zero"}});
  CHECK(scanned(store, "c/").empty());
  CHECK(scanned(store, "").size() == 6);

  auto value = store.get("a/m");
  REQUIRE(value);
  CHECK(*value == std::optional<std::string>("m"));
  auto missing = store.get("a/n");
  REQUIRE(missing);
  CHECK_FALSE(missing->has_value());
}

TEMPLATE_TEST_CASE("a key-value store finds the last key of a prefix", "[store]", RocksdbStoreUnderTest,
                   MemoryStoreUnderTest) {
  TestType under_test;
  auto& store = *under_test.store;
  auto none = store.last_key_with("a/");
  REQUIRE(none);
  CHECK_FALSE(none->has_value());

  put_all(store, {{"a/1", ""}, {"a/2", ""}, {"a0", "the key just past the prefix"}, {kHigh + kHigh, ""}});
  auto last = store.last_key_with("a/");
  REQUIRE(last);
  CHECK(*last == std::optional<std::string>("a/2"));
  auto high = store.last_key_with(kHigh);
  REQUIRE(high);
  CHECK(*high == std::optional<std::string>(kHigh + kHigh));
  auto before_all = store.last_key_with("0");
  REQUIRE(before_all);
  CHECK_FALSE(before_all->has_value());
}

TEMPLATE_TEST_CASE("a key-value batch applies its writes in order", "[store]", RocksdbStoreUnderTest,
                   MemoryStoreUnderTest) {
  TestType under_test;
  auto& store = *under_test.store;
  put_all(store, {{"k/1", "one"}, {"k/2", "two"}, {"k/3", "three"}, {"k/4", "four"}});

  KeyValueBatch batch;
  batch.erase_range("k/2", "k/4");  // k/2 and k/3
  batch.put("k/3", "again");        // after the range erase: kept
  batch.put("k/5", "five");
  batch.erase("k/5");               // after the put: gone
  batch.erase_range("k/9", "k/0");  // empty range: nothing
  REQUIRE(store.write(batch));

  CHECK(scanned(store, "k/") == Entries{{"k/1", "one"}, {"k/3", "again"}, {"k/4", "four"}});
}

TEST_CASE("a RocksDB store keeps its writes across a reopen and refuses a second opener", "[store]") {
  TempDir tmp;
  {
    auto store = RocksdbStore::open(tmp.journal());
    REQUIRE(store);
    put_all(**store, {{"x", "kept"}});
    auto second = RocksdbStore::open(tmp.journal());
    REQUIRE_FALSE(second);
    CHECK(second.error().message.find("in use by another process") != std::string::npos);
  }
  auto reopened = RocksdbStore::open(tmp.journal());
  REQUIRE(reopened);
  CHECK(scanned(**reopened, "") == Entries{{"x", "kept"}});
}
