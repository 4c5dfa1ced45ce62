#include <catch2/catch.hpp>

#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

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

namespace {

// Runs this test binary's "[.gpu-listing]" case in a child process with CUDA_VISIBLE_DEVICES set to
// `visible` (unset when nullopt) and returns the devices it printed, one "GPU <uuid>|<bytes>|<model>" line each.
// A child, because CUDA reads CUDA_VISIBLE_DEVICES once, when a process first uses it.
std::vector<Device> gpus_seen_by_a_process(const std::optional<std::string>& visible) {
  std::string command = visible ? "CUDA_VISIBLE_DEVICES='" + *visible + "' " : "env -u CUDA_VISIBLE_DEVICES ";
  command += "env -u VOLADOR_FAKE_GPUS /proc/" + std::to_string(::getpid()) + "/exe '[.gpu-listing]' 2>&1";
  std::vector<Device> seen;
  FILE* child = ::popen(command.c_str(), "r");
  REQUIRE(child != nullptr);
  std::array<char, 512> line{};
  while (std::fgets(line.data(), static_cast<int>(line.size()), child) != nullptr) {
    std::string text(line.data());
    if (!text.starts_with("GPU ")) continue;
    text = text.substr(4, text.find_last_not_of('\n') - 3);
    const auto bar = text.find('|');
    const auto second = text.find('|', bar + 1);
    seen.push_back({text.substr(0, bar), text.substr(second + 1), std::stoull(text.substr(bar + 1, second - bar - 1))});
  }
  ::pclose(child);
  return seen;
}

}  // namespace

TEST_CASE("Lists the GPUs discovery finds (run in a child by the test below)", "[.gpu-listing]") {
  for (const auto& gpu : discover_gpus().gpus) std::printf("GPU %s|%llu|%s\n", gpu.uuid.c_str(),
                                                          static_cast<unsigned long long>(gpu.memory_bytes),
                                                          gpu.model.c_str());
}

TEST_CASE("Real GPUs are found with UUID, model and memory, and CUDA_VISIBLE_DEVICES=<uuid> shows exactly that one") {
  const auto all = gpus_seen_by_a_process(std::nullopt);
  if (all.empty()) {
    WARN("no GPU here: discovery and binding were checked only with fake GPUs");
    return;
  }
  for (const auto& gpu : all) {
    INFO(gpu.uuid << " " << gpu.model << " " << gpu.memory_bytes);
    CHECK(gpu.uuid.starts_with("GPU-"));
    CHECK_FALSE(gpu.model.empty());
    CHECK(gpu.memory_bytes > (std::uint64_t{1} << 30));
    CHECK(gpus_seen_by_a_process(gpu.uuid) == std::vector<Device>{gpu});
  }
  CHECK(gpus_seen_by_a_process("").empty());  // what a CPU slot's rank gets
  WARN("found " << all.size() << " GPU(s), the first: " << all.front().model << ", " << all.front().uuid);
}
