#include "runtime/wire/codec.hpp"

#include <capnp/message.h>
#include <capnp/schema.h>
#include <capnp/serialize-packed.h>
#include <capnp/serialize.h>
#include <kj/io.h>
#include <kj/exception.h>

#include <cstring>
#include <string_view>

#include "schemas/control.records_capnp.hpp"

namespace volador::wire {
namespace {

namespace cp = ::capnp;

// The Cap'n Proto struct generated for `Message` (see capnpc-records).
template <class Message>
using CapnpType = decltype(capnp_type_of(static_cast<const Message*>(nullptr)));

template <class Message>
Error malformed(std::string_view why) {
  const auto type_name = cp::Schema::from<CapnpType<Message>>().getShortDisplayName();
  return Error::corruption("malformed " + std::string(type_name.cStr()) + " message: " + std::string(why));
}

constexpr std::size_t kUnpackScratchWords = 256;

cp::ReaderOptions reader_options() {
  cp::ReaderOptions options;
  options.traversalLimitInWords = kMaxMessageBytes / sizeof(cp::word);
  return options;
}

}  // namespace

template <class Message>
Bytes encode(const Message& message) {
  cp::MallocMessageBuilder builder;
  write(message, builder.initRoot<CapnpType<Message>>());
  auto words = cp::messageToFlatArray(builder);
  auto bytes = words.asBytes();
  return Bytes(reinterpret_cast<const char*>(bytes.begin()), reinterpret_cast<const char*>(bytes.end()));
}

template <class Message>
Result<Message> decode(const Bytes& bytes) {
  auto failure = [](std::string_view why) { return fail(malformed<Message>(why)); };
  if (bytes.size() % sizeof(cp::word) != 0) return failure("size is not a multiple of 8 bytes");
  if (bytes.size() > kMaxMessageBytes) return failure("larger than the message limit");
  // Copy into word-aligned storage: CAF's buffer carries no alignment promise.
  kj::Array<cp::word> words = kj::heapArray<cp::word>(bytes.size() / sizeof(cp::word));
  std::memcpy(words.begin(), bytes.data(), bytes.size());
  try {
    cp::FlatArrayMessageReader reader(words.asPtr(), reader_options());
    return read(reader.getRoot<CapnpType<Message>>());
  } catch (const kj::Exception& e) {
    return failure(e.getDescription().cStr());
  }
}

template <class Message>
std::string pack(const Message& message) {
  cp::MallocMessageBuilder builder;
  write(message, builder.initRoot<CapnpType<Message>>());
  kj::VectorOutputStream out;
  cp::writePackedMessage(out, builder);
  auto bytes = out.getArray();
  return std::string(reinterpret_cast<const char*>(bytes.begin()), bytes.size());
}

template <class Message>
Result<Message> unpack(std::string_view packed) {
  try {
    kj::ArrayInputStream in(kj::arrayPtr(reinterpret_cast<const kj::byte*>(packed.data()), packed.size()));
    cp::word scratch[kUnpackScratchWords];  // a small message needs no allocation; a larger one takes its own
    cp::PackedMessageReader reader(in, reader_options(), kj::arrayPtr(scratch, kUnpackScratchWords));
    return read(reader.getRoot<CapnpType<Message>>());
  } catch (const kj::Exception& e) {
    return fail(malformed<Message>(e.getDescription().cStr()));
  }
}

#define VOLADOR_WIRE_MESSAGE(M) \
  template Bytes encode<M>(const M&); \
  template Result<M> decode<M>(const Bytes&); \
  template std::string pack<M>(const M&); \
  template Result<M> unpack<M>(std::string_view);
VOLADOR_CONTROL_RECORDS(VOLADOR_WIRE_MESSAGE)
#undef VOLADOR_WIRE_MESSAGE

}  // namespace volador::wire
