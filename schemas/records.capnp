@0xd41c8e2a7b3f5960;
# Annotations read by capnpc-records (schemas/capnpc_records), the plugin that
# turns each struct and enum of a schema into a plain C++ record: the one
# definition of that record, with its Cap'n Proto conversion and its JSON.

# The C++ namespace of the file's records, e.g. "volador::wire".
annotation namespace @0xd41c8e2a7b3f5961 (file) :Text;

# On a Text field holding JSON: the JSON renders embedded, not as a string.
annotation json @0xd41c8e2a7b3f5962 (field) :Void;

# On a List of a two-field struct (key, value): the record holds a std::map
# from the first field to the second, and the JSON an object.
annotation map @0xd41c8e2a7b3f5963 (field) :Void;

# On a struct field: its fields render inline in the parent's JSON object.
annotation flatten @0xd41c8e2a7b3f5964 (field) :Void;

# On a Text field holding JSON: the record's member is the parsed
# nlohmann::json itself (written with dump(), read with parse), and the JSON
# embeds it. Reading text that is not JSON, or writing a value that cannot be
# dumped (a string that is not UTF-8), throws a kj::Exception naming the field.
# The field has no default: its member starts as JSON null.
annotation jsonValue @0xd41c8e2a7b3f5965 (field) :Void;
