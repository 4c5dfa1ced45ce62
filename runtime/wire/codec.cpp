#include "runtime/wire/codec.hpp"

#include <capnp/message.h>
#include <capnp/schema.h>
#include <capnp/serialize.h>
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
  const auto type_name = cp::Schema::from<CapnpType<Message>>().getShortDisplayName();
  auto failure = [&](std::string_view why) {
    return fail(Error::corruption("malformed " + std::string(type_name.cStr()) + " message: " + std::string(why)));
  };
  if (bytes.size() % sizeof(cp::word) != 0) return failure("size is not a multiple of 8 bytes");
  if (bytes.size() > kMaxMessageBytes) return failure("larger than the message limit");
  // Copy into word-aligned storage: CAF's buffer carries no alignment promise.
  kj::Array<cp::word> words = kj::heapArray<cp::word>(bytes.size() / sizeof(cp::word));
  std::memcpy(words.begin(), bytes.data(), bytes.size());
  try {
    cp::ReaderOptions options;
    options.traversalLimitInWords = kMaxMessageBytes / sizeof(cp::word);
    cp::FlatArrayMessageReader reader(words.asPtr(), options);
    return read(reader.getRoot<CapnpType<Message>>());
  } catch (const kj::Exception& e) {
    return failure(e.getDescription().cStr());
  }
}

#define VOLADOR_WIRE_MESSAGE(M) \
  template Bytes encode<M>(const M&); \
  template Result<M> decode<M>(const Bytes&);
VOLADOR_CONTROL_RECORDS(VOLADOR_WIRE_MESSAGE)
#undef VOLADOR_WIRE_MESSAGE

}  // namespace volador::wire
