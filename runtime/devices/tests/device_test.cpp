#include <catch2/catch.hpp>

#include <cstdlib>

#include "runtime/devices/device.hpp"
#include "runtime/devices/discovery.hpp"

using namespace volador::devices;

namespace {
const std::vector<Device> kTwoGpus{{"GPU-a", "H100", 80ULL << 30}, {"GPU-b", "H100", 80ULL << 30}};
}

TEST_CASE("An agent offers one slot per GPU, or CPU slots without GPUs") {
  auto automatic = plan_slots(SlotChoice::automatic, kTwoGpus, 16);
  REQUIRE(automatic.has_value());
  REQUIRE(automatic->size() == 2);
  CHECK((*automatic)[1] == Slot{SlotType::gpu, kTwoGpus[1]});

  auto no_gpu = plan_slots(SlotChoice::automatic, {}, 3);
  REQUIRE(no_gpu.has_value());
  CHECK(*no_gpu == std::vector<Slot>(3, Slot{SlotType::cpu, std::nullopt}));

  auto cpu_anyway = plan_slots(SlotChoice::cpu, kTwoGpus, 4);
  REQUIRE(cpu_anyway.has_value());
  CHECK(cpu_anyway->size() == 4);

  auto gpu_without = plan_slots(SlotChoice::gpu, {}, 4);
  REQUIRE_FALSE(gpu_without.has_value());
  CHECK_THAT(gpu_without.error().message, Catch::Contains("no GPU found"));
}

TEST_CASE("Slot choices parse, and a bad one names the choices") {
  CHECK(parse_slot_choice("auto") == SlotChoice::automatic);
  CHECK(parse_slot_choice("gpu") == SlotChoice::gpu);
  CHECK(parse_slot_choice("cpu") == SlotChoice::cpu);
  auto bad = parse_slot_choice("tpu");
  REQUIRE_FALSE(bad.has_value());
  CHECK_THAT(bad.error().message, Catch::Contains("auto, gpu or cpu"));
}

TEST_CASE("Fake GPUs are described by count and model, with UUIDs unique per host") {
  auto four = fake_gpus("4", "node-a");
  REQUIRE(four.has_value());
  REQUIRE(four->size() == 4);
  CHECK((*four)[3].uuid == "GPU-fake-node-a-3");
  CHECK((*four)[0].model == "Fake GPU");
  auto named = fake_gpus("2:Fake A100", "node-b");
  REQUIRE(named.has_value());
  CHECK((*named)[1].model == "Fake A100");
  for (const auto* bad : {"x", "-1", "2x", "100"}) {
    auto refused = fake_gpus(bad, "h");
    REQUIRE_FALSE(refused.has_value());
    CHECK_THAT(refused.error().message, Catch::Contains("VOLADOR_FAKE_GPUS"));
  }
}

TEST_CASE("Discovery honours the fake-GPU seam") {
  ::setenv("VOLADOR_FAKE_GPUS", "3:Fake T4", 1);
  const auto found = discover_gpus();
  ::unsetenv("VOLADOR_FAKE_GPUS");
  REQUIRE(found.gpus.size() == 3);
  CHECK(found.gpus[0].model == "Fake T4");
  CHECK_THAT(found.source, Catch::Contains("VOLADOR_FAKE_GPUS"));
}

TEST_CASE("Discovery without the seam never fails") {
  ::unsetenv("VOLADOR_FAKE_GPUS");
  const auto found = discover_gpus();
  CHECK_FALSE(found.source.empty());  // "CUDA runtime", "CUDA runtime: no GPU (...)" or "built without CUDA"
}
