#pragma once
// The C++ that capnpc-records writes for one schema file NAME.capnp, whose
// structs and enums must all be declared at file scope:
//  - NAME.records.hpp: a plain struct per struct (snake_case members, schema
//    defaults, ==), an enum class per enum with to_string and parse_<name>,
//    and to_json for each (nlohmann); no Cap'n Proto in sight.
//  - NAME.records.cpp: their definitions.
//  - NAME.records_capnp.hpp/.cpp: write(record, builder) and read(reader) for
//    each struct, capnp_type_of(const Record*) naming its Cap'n Proto struct,
//    and the X-macro VOLADOR_<NAME>_RECORDS listing the structs. read throws
//    a kj::Exception naming the field ("Record.member: ...") for an enum
//    number its enum does not name, and both refuse a $jsonValue they cannot
//    parse or dump, as Cap'n Proto itself throws for a malformed message.
// A union is allowed only as an optional value: a group `x :union { none @N
// :Void; value @M :T; }` becomes std::optional<T> x. The annotations of
// schemas/records.capnp set the namespace and JSON forms.

#include <capnp/schema-loader.h>

#include <string>
#include <vector>

namespace volador::records {

struct GeneratedFile {
  std::string name;  // e.g. "control.records.hpp"
  std::string text;
};

// The four files for `file`. Throws std::runtime_error naming the struct and
// field when the schema uses something a record cannot hold.
std::vector<GeneratedFile> generate_record_files(const capnp::SchemaLoader& loader, capnp::Schema file,
                                                 capnp::schema::CodeGeneratorRequest::Reader request);

}  // namespace volador::records
