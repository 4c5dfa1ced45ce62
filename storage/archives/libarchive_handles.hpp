#pragma once
// Owning handles and error text for libarchive objects, shared by pack.cpp
// and unpack.cpp (internal to storage/archives).

#include <archive.h>
#include <archive_entry.h>

#include <memory>
#include <string>

namespace volador::archives {

// libarchive's message for the last error on `a`.
inline std::string error_of(archive* a) {
  const char* message = archive_error_string(a);
  return message == nullptr ? "unknown libarchive error" : message;
}

struct WriteFree {
  void operator()(archive* a) const { archive_write_free(a); }
};
struct ReadFree {
  void operator()(archive* a) const { archive_read_free(a); }
};
struct EntryFree {
  void operator()(archive_entry* e) const { archive_entry_free(e); }
};

using ArchiveWriter = std::unique_ptr<archive, WriteFree>;
using ArchiveReader = std::unique_ptr<archive, ReadFree>;
using ArchiveEntry = std::unique_ptr<archive_entry, EntryFree>;

}  // namespace volador::archives
