#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/net/basp_frame_guard.hpp"

using namespace volador::net;

namespace {

// A BASP frame: a 32-byte header announcing `payload_len` (big-endian at
// offset 4; the other fields do not matter to the guard), then the payload.
std::vector<std::byte> frame(std::uint32_t payload_len, std::size_t payload_bytes_sent) {
  std::vector<std::byte> bytes(kBaspHeaderBytes + payload_bytes_sent, std::byte{0x5a});
  for (int i = 0; i < 4; ++i) bytes[4 + i] = static_cast<std::byte>(payload_len >> (24 - 8 * i));
  return bytes;
}

std::vector<std::byte> operator+(std::vector<std::byte> a, const std::vector<std::byte>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace

TEST_CASE("Frames up to the cap pass whatever the read sizes") {
  const auto stream = frame(0, 0) + frame(100, 100) + frame(1000, 1000) + frame(0, 0) + frame(7, 7);
  for (std::size_t chunk : {std::size_t{1}, std::size_t{3}, std::size_t{32}, std::size_t{1000}, stream.size()}) {
    BaspFrameGuard guard(1000);
    for (std::size_t at = 0; at < stream.size(); at += chunk)
      REQUIRE(guard.admit(std::span(stream).subspan(at, std::min(chunk, stream.size() - at))));
    CHECK(guard.refused_payload() == 0);
    CHECK(guard.complete_frames() == 5);
  }
}

TEST_CASE("A header announcing more than the cap is refused as soon as its length is complete") {
  BaspFrameGuard guard(1000);
  const auto stream = frame(50, 50) + frame(0xffffffffu, 0);
  const std::size_t second_header = kBaspHeaderBytes + 50;
  REQUIRE(guard.admit(std::span(stream).first(second_header + 7)));  // one byte short of payload_len
  CHECK_FALSE(guard.admit(std::span(stream).subspan(second_header + 7, 1)));
  CHECK(guard.refused_payload() == 0xffffffffu);
  CHECK_FALSE(guard.admit(std::span(stream).subspan(second_header + 8)));  // and ever after
}

TEST_CASE("Payload bytes that look like an oversized header are not mistaken for one") {
  BaspFrameGuard guard(1000);
  const auto inner = frame(0xffffffffu, 0);
  auto outer = frame(static_cast<std::uint32_t>(inner.size()), 0) + inner + frame(1001, 0);
  CHECK_FALSE(guard.admit(outer));
  CHECK(guard.refused_payload() == 1001);
}

TEST_CASE("A frame counts once its last payload byte is read") {
  BaspFrameGuard guard(1000);
  const auto stream = frame(10, 10);
  REQUIRE(guard.admit(std::span(stream).first(kBaspHeaderBytes + 9)));
  CHECK(guard.complete_frames() == 0);
  REQUIRE(guard.admit(std::span(stream).last(1)));
  CHECK(guard.complete_frames() == 1);
}

TEST_CASE("Exactly the cap passes") {
  BaspFrameGuard guard(1000);
  CHECK(guard.admit(frame(1000, 1000)));
  CHECK(guard.admit(frame(1000, 0)));
}
