#include "schemas/capnpc_records/record_file.hpp"

#include <capnp/schema.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "schemas/capnpc_records/names.hpp"

namespace volador::records {
namespace {

namespace schema = capnp::schema;
using Field = capnp::StructSchema::Field;

// The annotations of schemas/records.capnp, and Cap'n Proto's own $Cxx.namespace.
constexpr std::uint64_t kNamespace = 0xd41c8e2a7b3f5961;
constexpr std::uint64_t kJson = 0xd41c8e2a7b3f5962;
constexpr std::uint64_t kMap = 0xd41c8e2a7b3f5963;
constexpr std::uint64_t kFlatten = 0xd41c8e2a7b3f5964;
constexpr std::uint64_t kJsonValue = 0xd41c8e2a7b3f5965;
constexpr std::uint64_t kCxxNamespace = 0xb9c6f99ebf805f2c;

std::string to_std(capnp::Text::Reader text) { return {text.cStr(), text.size()}; }

// `code` with `spaces` more spaces before each line.
std::string indented(const std::string& code, std::size_t spaces) {
  std::string out;
  std::size_t start = 0;
  while (start < code.size()) {
    auto end = code.find('\n', start);
    if (end == std::string::npos) end = code.size() - 1;
    out += std::string(spaces, ' ') + code.substr(start, end - start + 1);
    start = end + 1;
  }
  return out;
}

std::optional<schema::Value::Reader> annotation(capnp::List<schema::Annotation>::Reader annotations, std::uint64_t id) {
  for (auto a : annotations)
    if (a.getId() == id) return a.getValue();
  return std::nullopt;
}

bool has_annotation(const Field& field, std::uint64_t id) {
  return annotation(field.getProto().getAnnotations(), id).has_value();
}

std::string file_base_name(capnp::Schema file) {
  auto name = to_std(file.getProto().getDisplayName());
  if (auto slash = name.rfind('/'); slash != std::string::npos) name = name.substr(slash + 1);
  return name.substr(0, name.rfind(".capnp"));
}

std::string primitive_type(capnp::schema::Type::Which which) {
  switch (which) {
    case schema::Type::BOOL: return "bool";
    case schema::Type::INT8: return "std::int8_t";
    case schema::Type::INT16: return "std::int16_t";
    case schema::Type::INT32: return "std::int32_t";
    case schema::Type::INT64: return "std::int64_t";
    case schema::Type::UINT8: return "std::uint8_t";
    case schema::Type::UINT16: return "std::uint16_t";
    case schema::Type::UINT32: return "std::uint32_t";
    case schema::Type::UINT64: return "std::uint64_t";
    case schema::Type::FLOAT32: return "float";
    case schema::Type::FLOAT64: return "double";
    case schema::Type::TEXT:
    case schema::Type::DATA: return "std::string";
    default: return "";
  }
}

// A slot's non-zero default as a C++ initializer ("" for zero/empty).
std::string default_value(const schema::Value::Reader& value) {
  switch (value.which()) {
    case schema::Value::BOOL: return value.getBool() ? "true" : "";
    case schema::Value::INT8: return value.getInt8() != 0 ? std::to_string(value.getInt8()) : "";
    case schema::Value::INT16: return value.getInt16() != 0 ? std::to_string(value.getInt16()) : "";
    case schema::Value::INT32: return value.getInt32() != 0 ? std::to_string(value.getInt32()) : "";
    case schema::Value::INT64: return value.getInt64() != 0 ? std::to_string(value.getInt64()) : "";
    case schema::Value::UINT8: return value.getUint8() != 0 ? std::to_string(value.getUint8()) : "";
    case schema::Value::UINT16: return value.getUint16() != 0 ? std::to_string(value.getUint16()) : "";
    case schema::Value::UINT32: return value.getUint32() != 0 ? std::to_string(value.getUint32()) : "";
    case schema::Value::UINT64: return value.getUint64() != 0 ? std::to_string(value.getUint64()) : "";
    case schema::Value::FLOAT32: return value.getFloat32() != 0 ? std::to_string(value.getFloat32()) : "";
    case schema::Value::FLOAT64: return value.getFloat64() != 0 ? std::to_string(value.getFloat64()) : "";
    default: return "";
  }
}

// The start of every NAME.records_capnp.cpp: how write and read refuse a
// value, with the kj::Exception that Cap'n Proto throws for its own refusals.
constexpr const char* kCapnpHelpers = R"(namespace {

// Refuses to write or read a value of `field` ("Record.member"), saying why.
[[noreturn, maybe_unused]] void refuse(const char* field, const std::string& why) {
  throw ::kj::Exception(::kj::Exception::Type::FAILED, __FILE__, __LINE__, ::kj::str(field, ": ", why.c_str()));
}

// Text and Data as a member: one call of the getter, which each counts
// against the reader's traversal limit.
[[maybe_unused]] std::string copy_of(::capnp::Text::Reader text) { return {text.begin(), text.size()}; }
[[maybe_unused]] std::string copy_of(::capnp::Data::Reader data) {
  return {reinterpret_cast<const char*>(data.begin()), data.size()};
}

// A $jsonValue member as text; refused when it cannot be dumped (a string that is not UTF-8).
[[maybe_unused]] std::string dumped(const nlohmann::json& json, const char* field) {
  try {
    return json.dump();
  } catch (const nlohmann::json::exception& e) {
    refuse(field, e.what());
  }
}

// A $jsonValue member from its text; refused when the text is not JSON.
[[maybe_unused]] nlohmann::json parsed(::capnp::Text::Reader text, const char* field) {
  auto json = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  if (json.is_discarded()) refuse(field, "not valid JSON");
  return json;
}

// An enum member from its stored number; refused when the enum has no such enumerant.
template <class Enum>
Enum known(std::uint16_t value, std::uint16_t count, const char* field) {
  if (value >= count) refuse(field, "unknown enumerant " + std::to_string(value));
  return static_cast<Enum>(value);
}

}  // namespace

)";

// Generates the four files; one instance per schema file.
class Generator {
 public:
  Generator(const capnp::SchemaLoader& loader, capnp::Schema file, schema::CodeGeneratorRequest::Reader request)
      : loader_(loader), file_(file), request_(request), base_(file_base_name(file)) {
    auto ns = annotation(file.getProto().getAnnotations(), kNamespace);
    if (!ns) fail("the file has no $Records.namespace annotation");
    namespace_ = to_std(ns->getText());
    collect_declarations();
  }

  std::vector<GeneratedFile> files() {
    auto header = records_header();  // first: it collects the includes of imported records
    return {{base_ + ".records.hpp", header},
            {base_ + ".records.cpp", records_source()},
            {base_ + ".records_capnp.hpp", capnp_header()},
            {base_ + ".records_capnp.cpp", capnp_source()}};
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error(to_std(file_.getProto().getDisplayName()) + ": " + what);
  }

  // --- declarations of the file ---

  void collect_declarations() {
    for (auto nested : file_.getProto().getNestedNodes()) {
      auto node = loader_.get(nested.getId());
      if (node.getProto().isStruct()) structs_.push_back(node.asStruct());
      else if (node.getProto().isEnum()) enums_.push_back(node.asEnum());
      else if (!node.getProto().isAnnotation() && !node.getProto().isConst()) fail("only structs and enums become records");
      for (auto inner : node.getProto().getNestedNodes())
        fail(to_std(nested.getName()) + "." + to_std(inner.getName()) + ": declare records at file scope");
    }
    order_structs();
  }

  // Structs in an order where each is declared before the records it is a field of.
  void order_structs() {
    std::vector<capnp::StructSchema> ordered;
    std::set<std::uint64_t> placed;
    std::function<void(capnp::StructSchema)> place = [&](capnp::StructSchema s) {
      if (!placed.insert(s.getProto().getId()).second) return;
      for (auto dependency : local_struct_dependencies(s)) place(dependency);
      ordered.push_back(s);
    };
    for (auto s : structs_) place(s);
    structs_ = std::move(ordered);
  }

  std::vector<capnp::StructSchema> local_struct_dependencies(capnp::StructSchema s) const {
    std::vector<capnp::StructSchema> out;
    std::function<void(capnp::Type)> visit = [&](capnp::Type type) {
      if (type.isList()) return visit(type.asList().getElementType());
      if (!type.isStruct()) return;
      auto inner = type.asStruct();
      if (inner.getProto().getStruct().getIsGroup()) {
        for (auto f : inner.getFields()) visit(f.getType());
      } else if (inner.getProto().getScopeId() == file_.getProto().getId()) {
        out.push_back(inner);
      }
    };
    for (auto field : s.getFields()) visit(field.getType());
    return out;
  }

  // --- names ---

  capnp::Schema file_of(capnp::Schema node) const {
    while (!node.getProto().isFile()) node = loader_.get(node.getProto().getScopeId());
    return node;
  }

  // The record's C++ name, qualified (and its header included) when another file declares it.
  std::string record_name(capnp::Schema node) {
    auto name = to_std(node.getShortDisplayName());
    auto file = file_of(node);
    if (file.getProto().getId() == file_.getProto().getId()) return name;
    auto ns = annotation(file.getProto().getAnnotations(), kNamespace);
    if (!ns) fail(name + " comes from a file without $Records.namespace");
    includes_.insert("schemas/" + file_base_name(file) + ".records.hpp");
    return "::" + to_std(ns->getText()) + "::" + name;
  }

  // The Cap'n Proto generated C++ type for `node`.
  std::string capnp_name(capnp::Schema node) const {
    auto file = file_of(node);
    auto ns = annotation(file.getProto().getAnnotations(), kCxxNamespace);
    return "::" + (ns ? to_std(ns->getText()) + "::" : std::string()) + to_std(node.getShortDisplayName());
  }

  // --- field shapes ---

  // The value field of an optional group, or nullopt when `field` is not one.
  std::optional<Field> optional_value(const Field& field) const {
    if (!field.getProto().isGroup()) return std::nullopt;
    auto group = field.getType().asStruct();
    auto fields = group.getFields();
    if (fields.size() != 2 || group.getUnionFields().size() != 2 || to_std(fields[0].getProto().getName()) != "none" ||
        !fields[0].getType().isVoid() || to_std(fields[1].getProto().getName()) != "value")
      fail(to_std(field.getContainingStruct().getShortDisplayName()) + "." + to_std(field.getProto().getName()) +
           ": a group must be an optional value, `:union { none @N :Void; value @M :T; }`");
    return fields[1];
  }

  // The (key, value) fields of a $map field's element struct.
  std::pair<Field, Field> map_entry(const Field& field) const {
    auto type = field.getType();
    if (!type.isList() || !type.asList().getElementType().isStruct() ||
        type.asList().getElementType().asStruct().getFields().size() != 2)
      fail(to_std(field.getProto().getName()) + ": $map needs a List of a struct with two fields");
    auto entry = type.asList().getElementType().asStruct().getFields();
    return {entry[0], entry[1]};
  }

  std::string value_type(capnp::Type type) {
    if (type.isList()) return "std::vector<" + value_type(type.asList().getElementType()) + ">";
    if (type.isStruct()) return record_name(type.asStruct());
    if (type.isEnum()) return record_name(type.asEnum());
    auto primitive = primitive_type(type.which());
    if (primitive.empty()) fail("a field of an unsupported type (interfaces, AnyPointer, Void)");
    return primitive;
  }

  // "Record.field", as errors and the generated code's own refusals name a field.
  static std::string field_label(const Field& field) {
    const auto record = to_std(field.getContainingStruct().getShortDisplayName());
    return record + "." + snake_case(to_std(field.getProto().getName()));
  }

  // True for a $jsonValue field, after checking that it is one the records can hold.
  bool is_json_value(const Field& field) const {
    if (!has_annotation(field, kJsonValue)) return false;
    if (field.getProto().isGroup() || !field.getType().isText())
      fail(field_label(field) + ": $jsonValue needs a Text field");
    if (field.getProto().getSlot().getHadExplicitDefault())
      fail(field_label(field) + ": a $jsonValue field cannot have a default");
    return true;
  }

  std::string field_type(const Field& field) {
    if (is_json_value(field)) return "nlohmann::json";
    if (auto value = optional_value(field)) return "std::optional<" + value_type(value->getType()) + ">";
    if (has_annotation(field, kMap)) {
      auto [key, value] = map_entry(field);
      return "std::map<" + value_type(key.getType()) + ", " + value_type(value.getType()) + ">";
    }
    return value_type(field.getType());
  }

  std::string field_default(const Field& field) {
    auto type = field.getType();
    if (field.getProto().isGroup() || is_json_value(field)) return "";
    auto value = field.getProto().getSlot().getDefaultValue();
    if (type.isEnum()) {
      auto enumerants = type.asEnum().getEnumerants();
      return " = " + record_name(type.asEnum()) + "::" + snake_case(to_std(enumerants[value.getEnum()].getProto().getName()));
    }
    auto initializer = default_value(value);
    if (!initializer.empty()) return " = " + initializer;
    if (type.isBool()) return " = false";
    return type.isList() || type.isStruct() || type.isText() || type.isData() ? "" : " = 0";
  }

  // --- NAME.records.hpp / .cpp ---

  std::string doc_comment(std::uint64_t id, int member = -1, const std::string& indent = "") const {
    for (auto info : request_.getSourceInfo()) {
      if (info.getId() != id) continue;
      auto text = member < 0 ? to_std(info.getDocComment())
                             : (static_cast<unsigned>(member) < info.getMembers().size()
                                    ? to_std(info.getMembers()[member].getDocComment()) : "");
      std::string out;
      std::size_t start = 0;
      while (start < text.size()) {
        auto end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        out += indent + "// " + text.substr(start, end - start) + "\n";
        start = end + 1;
      }
      return out;
    }
    return "";
  }

  std::string enum_declaration(capnp::EnumSchema e) {
    const auto name = to_std(e.getShortDisplayName());
    std::string out = doc_comment(e.getProto().getId()) + "enum class " + name + " : std::uint16_t {";
    for (auto enumerant : e.getEnumerants())
      out += (enumerant.getIndex() == 0 ? " " : ", ") + snake_case(to_std(enumerant.getProto().getName()));
    out += " };\n";
    out += "// " + name + "'s name as users read it, e.g. \"" +
           upper_snake_case(to_std(e.getEnumerants()[0].getProto().getName())) + "\".\n";
    out += "std::string_view to_string(" + name + " value);\n";
    out += "// The inverse of to_string; nullopt for an unknown name.\n";
    out += "std::optional<" + name + "> parse_" + snake_case(name) + "(std::string_view text);\n";
    out += "void to_json(nlohmann::json& json, " + name + " value);\n\n";
    return out;
  }

  std::string struct_declaration(capnp::StructSchema s) {
    const auto name = to_std(s.getShortDisplayName());
    std::string out = doc_comment(s.getProto().getId()) + "struct " + name + " {\n";
    for (auto field : fields_in_code_order(s)) {
      out += doc_comment(s.getProto().getId(), static_cast<int>(field.getIndex()), "  ");
      out += "  " + field_type(field) + " " + snake_case(to_std(field.getProto().getName())) + field_default(field) + ";\n";
    }
    out += "  bool operator==(const " + name + "&) const = default;\n};\n";
    out += "void to_json(nlohmann::json& json, const " + name + "& record);\n\n";
    return out;
  }

  static std::vector<Field> fields_in_code_order(capnp::StructSchema s) {
    std::vector<Field> out;
    for (auto field : s.getFields()) out.push_back(field);
    std::sort(out.begin(), out.end(),
              [](const Field& a, const Field& b) { return a.getProto().getCodeOrder() < b.getProto().getCodeOrder(); });
    return out;
  }

  std::string records_header() {
    std::string body;
    for (auto e : enums_) body += enum_declaration(e);
    for (auto s : structs_) body += struct_declaration(s);
    std::string out = "#pragma once\n// Generated by capnpc-records from " + to_std(file_.getProto().getDisplayName()) +
                      ": edit the schema, not this file.\n\n"
                      "#include <cstdint>\n#include <map>\n#include <optional>\n#include <string>\n"
                      "#include <string_view>\n#include <vector>\n\n#include <nlohmann/json.hpp>\n\n";
    for (const auto& include : includes_) out += "#include \"" + include + "\"\n";
    return out + "\nnamespace " + namespace_ + " {\n\n" + body + "}  // namespace " + namespace_ + "\n";
  }

  std::string enum_definitions(capnp::EnumSchema e) {
    const auto name = to_std(e.getShortDisplayName());
    std::string names, cases;
    for (auto enumerant : e.getEnumerants()) {
      const auto text = upper_snake_case(to_std(enumerant.getProto().getName()));
      names += "    {" + name + "::" + snake_case(to_std(enumerant.getProto().getName())) + ", \"" + text + "\"},\n";
    }
    std::string out = "namespace {\nconstexpr std::pair<" + name + ", std::string_view> k" + name + "Names[] = {\n" +
                      names + "};\n}  // namespace\n\n";
    out += "std::string_view to_string(" + name + " value) {\n  for (const auto& [v, text] : k" + name +
           "Names)\n    if (v == value) return text;\n  return \"?\";\n}\n\n";
    out += "std::optional<" + name + "> parse_" + snake_case(name) + "(std::string_view text) {\n  for (const auto& [v, t] : k" +
           name + "Names)\n    if (t == text) return v;\n  return std::nullopt;\n}\n\n";
    out += "void to_json(nlohmann::json& json, " + name + " value) { json = to_string(value); }\n\n";
    return out;
  }

  std::string json_statement(const Field& field) {
    const auto member = "record." + snake_case(to_std(field.getProto().getName()));
    const auto key = "json[\"" + snake_case(to_std(field.getProto().getName())) + "\"]";
    if (optional_value(field)) return "  " + key + " = " + member + " ? nlohmann::json(*" + member + ") : nlohmann::json(nullptr);\n";
    if (has_annotation(field, kFlatten)) return "  json.update(nlohmann::json(" + member + "));\n";
    if (has_annotation(field, kJson)) return "  " + key + " = embedded_json(" + member + ");\n";
    if (field.getType().isData()) return "";  // bytes are not rendered
    return "  " + key + " = " + member + ";\n";
  }

  std::string records_source() {
    std::string out = "// Generated by capnpc-records from " + to_std(file_.getProto().getDisplayName()) +
                      ": edit the schema, not this file.\n#include \"schemas/" + base_ + ".records.hpp\"\n\n#include <utility>\n\n"
                      "namespace " + namespace_ + " {\n\n";
    out += "[[maybe_unused]] static nlohmann::json embedded_json(const std::string& text) {\n"
           "  auto parsed = nlohmann::json::parse(text, nullptr, false);\n"
           "  return parsed.is_discarded() ? nlohmann::json(text) : parsed;\n}\n\n";
    for (auto e : enums_) out += enum_definitions(e);
    for (auto s : structs_) {
      out += "void to_json(nlohmann::json& json, const " + to_std(s.getShortDisplayName()) +
             "& record) {\n  json = nlohmann::json::object();\n";
      for (auto field : fields_in_code_order(s)) out += json_statement(field);
      out += "}\n\n";
    }
    return out + "}  // namespace " + namespace_ + "\n";
  }

  // --- NAME.records_capnp.hpp / .cpp ---

  std::string capnp_header() {
    std::string out = "#pragma once\n// Generated by capnpc-records from " + to_std(file_.getProto().getDisplayName()) +
                      ": conversion of the records to and from their Cap'n Proto structs.\n\n"
                      "#include \"schemas/" + base_ + ".capnp.h\"\n#include \"schemas/" + base_ + ".records.hpp\"\n\n"
                      "namespace " + namespace_ + " {\n\n";
    std::string list;
    for (auto s : structs_) {
      const auto name = to_std(s.getShortDisplayName());
      const auto capnp = capnp_name(s);
      out += "void write(const " + name + "& record, " + capnp + "::Builder builder);\n";
      out += name + " read(" + capnp + "::Reader reader);\n";
      out += capnp + " capnp_type_of(const " + name + "*);  // names the struct in decltype only\n\n";
      list += " X(" + name + ")";
    }
    std::string macro = base_;
    for (char& c : macro) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    out += "// X(Record) for each record of the file.\n#define VOLADOR_" + macro + "_RECORDS(X)" + list + "\n\n";
    return out + "}  // namespace " + namespace_ + "\n";
  }

  // C++ value -> what a Cap'n Proto setter takes.
  std::string to_capnp(capnp::Type type, const std::string& value) const {
    if (type.isEnum()) return "static_cast<" + capnp_name(type.asEnum()) + ">(" + value + ")";
    if (type.isText()) return "::capnp::Text::Reader(" + value + ".data(), " + value + ".size())";
    if (type.isData()) return "::capnp::Data::Reader(reinterpret_cast<const kj::byte*>(" + value + ".data()), " + value + ".size())";
    return value;
  }

  // Cap'n Proto reader value -> C++ value; `label` names the field in the refusal of an unknown enumerant.
  std::string from_capnp(capnp::Type type, const std::string& value, const std::string& label) {
    if (type.isEnum()) {
      return "known<" + record_name(type.asEnum()) + ">(static_cast<std::uint16_t>(" + value + "), " +
             std::to_string(type.asEnum().getEnumerants().size()) + ", \"" + label + "\")";
    }
    if (type.isText() || type.isData()) return "copy_of(" + value + ")";
    if (type.isStruct()) return "read(" + value + ")";
    return value;
  }

  // Statements setting field `name` (of type `type`) of `builder` from `value`.
  std::string write_value(const std::string& builder, const std::string& name, capnp::Type type, const std::string& value) {
    const auto accessor = capitalized(name);
    if (type.isStruct()) return "  write(" + value + ", " + builder + ".init" + accessor + "());\n";
    if (!type.isList()) return "  " + builder + ".set" + accessor + "(" + to_capnp(type, value) + ");\n";
    auto element = type.asList().getElementType();
    std::string out = "  {\n    auto list = " + builder + ".init" + accessor + "(static_cast<unsigned>(" + value + ".size()));\n";
    out += "    for (unsigned i = 0; i < list.size(); ++i) ";
    if (element.isStruct()) return out + "write(" + value + "[i], list[i]);\n  }\n";
    if (element.isList()) fail(name + ": lists of lists are not supported");
    return out + "list.set(i, " + to_capnp(element, value + "[i]") + ");\n  }\n";
  }

  std::string write_field(const Field& field) {
    const auto name = to_std(field.getProto().getName());
    const auto member = "record." + snake_case(name);
    if (is_json_value(field)) {
      const auto text = "dumped(" + member + ", \"" + field_label(field) + "\")";
      return "  builder.set" + capitalized(name) + "(" + text + ".c_str());\n";
    }
    if (auto value = optional_value(field)) {
      return "  {\n    auto group = builder.init" + capitalized(name) + "();\n    if (" + member + ") {\n" +
             indented(write_value("group", "value", value->getType(), "(*" + member + ")"), 4) +
             "    } else {\n      group.setNone();\n    }\n  }\n";
    }
    if (has_annotation(field, kMap)) {
      auto [key, value] = map_entry(field);
      const auto key_name = capitalized(to_std(key.getProto().getName()));
      const auto value_name = capitalized(to_std(value.getProto().getName()));
      return "  {\n    auto list = builder.init" + capitalized(name) + "(static_cast<unsigned>(" + member +
             ".size()));\n    unsigned i = 0;\n    for (const auto& [key, value] : " + member + ") {\n      list[i].set" + key_name +
             "(" + to_capnp(key.getType(), "key") + ");\n      list[i].set" + value_name + "(" + to_capnp(value.getType(), "value") +
             ");\n      ++i;\n    }\n  }\n";
    }
    return write_value("builder", name, field.getType(), member);
  }

  std::string read_field(const Field& field) {
    const auto name = to_std(field.getProto().getName());
    const auto member = "record." + snake_case(name);
    const auto getter = "reader.get" + capitalized(name) + "()";
    const auto label = field_label(field);
    if (is_json_value(field)) return "  " + member + " = parsed(" + getter + ", \"" + label + "\");\n";
    if (auto value = optional_value(field)) {
      const auto read_value = from_capnp(value->getType(), getter + ".getValue()", label);
      return "  if (" + getter + ".isValue()) " + member + " = " + read_value + ";\n";
    }
    if (has_annotation(field, kMap)) {
      auto [key, value] = map_entry(field);
      const auto key_getter = "entry.get" + capitalized(to_std(key.getProto().getName())) + "()";
      const auto value_getter = "entry.get" + capitalized(to_std(value.getProto().getName())) + "()";
      return "  for (auto entry : " + getter + ")\n    " + member + "[" + from_capnp(key.getType(), key_getter, label) +
             "] = " + from_capnp(value.getType(), value_getter, label) + ";\n";
    }
    if (field.getType().isList()) {
      return "  for (auto element : " + getter + ") " + member + ".push_back(" +
             from_capnp(field.getType().asList().getElementType(), "element", label) + ");\n";
    }
    return "  " + member + " = " + from_capnp(field.getType(), getter, label) + ";\n";
  }

  std::string capnp_source() {
    std::string out = "// Generated by capnpc-records from " + to_std(file_.getProto().getDisplayName()) +
                      ": edit the schema, not this file.\n#include \"schemas/" + base_ + ".records_capnp.hpp\"\n\n"
                      "#include <kj/exception.h>\n#include <kj/string.h>\n\n#include <string>\n\n"
                      "namespace " + namespace_ + " {\n\n" + kCapnpHelpers;
    for (auto s : structs_) {
      const auto name = to_std(s.getShortDisplayName());
      const auto capnp = capnp_name(s);
      out += "void write(const " + name + "& record, " + capnp + "::Builder builder) {\n";
      for (auto field : s.getFields()) out += write_field(field);
      out += "}\n\n" + name + " read(" + capnp + "::Reader reader) {\n  " + name + " record;\n";
      for (auto field : s.getFields()) out += read_field(field);
      out += "  return record;\n}\n\n";
    }
    return out + "}  // namespace " + namespace_ + "\n";
  }

  const capnp::SchemaLoader& loader_;
  capnp::Schema file_;
  schema::CodeGeneratorRequest::Reader request_;
  std::string base_;
  std::string namespace_;
  std::vector<capnp::EnumSchema> enums_;
  std::vector<capnp::StructSchema> structs_;
  std::set<std::string> includes_;
};

}  // namespace

std::vector<GeneratedFile> generate_record_files(const capnp::SchemaLoader& loader, capnp::Schema file,
                                                 schema::CodeGeneratorRequest::Reader request) {
  return Generator(loader, file, request).files();
}

}  // namespace volador::records
