#include <catch2/catch.hpp>

#include "runtime/training/lengths.hpp"

using namespace volador;
using config::Length;
using config::LengthUnit;

TEST_CASE("Batch lengths are taken as they are") {
  CHECK(training::to_batches({LengthUnit::batches, 900}, 32, std::nullopt) == 900);
  CHECK(training::to_batches({LengthUnit::batches, 1}, 512, std::nullopt) == 1);
}

TEST_CASE("Record lengths drop the partial batch: 10 records at batch size 3 train 9 records, 3 batches") {
  CHECK(training::to_batches({LengthUnit::records, 10}, 3, std::nullopt) == 3);
  CHECK(training::to_batches({LengthUnit::records, 12}, 3, std::nullopt) == 4);
  CHECK(training::to_batches({LengthUnit::records, 50000}, 64, std::nullopt) == 781);
}

TEST_CASE("Epoch lengths multiply by records_per_epoch before dividing") {
  CHECK(training::to_batches({LengthUnit::epochs, 64}, 32, 50000) == 100000);
  CHECK(training::to_batches({LengthUnit::epochs, 1}, 3, 10) == 3);
  // 3 epochs of 10 records at batch size 4: 30 records -> 7 batches, not 3 * 2.
  CHECK(training::to_batches({LengthUnit::epochs, 3}, 4, 10) == 7);
  // epochs times records past 2^64 (2^70) does not wrap: 2^30 epochs of 2^40 records in batches of 2^20.
  CHECK(training::to_batches({LengthUnit::epochs, 1ULL << 30}, 1ULL << 20, 1ULL << 40) == 1ULL << 50);
}

TEST_CASE("A length shorter than one batch trains one batch") {
  CHECK(training::to_batches({LengthUnit::records, 2}, 3, std::nullopt) == 1);
  CHECK(training::to_batches({LengthUnit::epochs, 1}, 64, 10) == 1);
}

TEST_CASE("Batches per epoch is at least one and needs records_per_epoch") {
  CHECK(training::batches_per_epoch(32, 50000) == 1562);
  CHECK(training::batches_per_epoch(64, 10) == 1);
  CHECK_FALSE(training::batches_per_epoch(32, std::nullopt).has_value());
}
