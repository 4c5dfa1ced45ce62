#pragma once
// How schema names become C++ and JSON names in the generated records.

#include <string>
#include <string_view>

namespace volador::records {

// "bestValidation" -> "best_validation" (members, enumerants, JSON keys).
std::string snake_case(std::string_view camel);

// "finalResult" -> "FINAL_RESULT" (an enumerant as users read it).
std::string upper_snake_case(std::string_view camel);

// "bestValidation" -> "BestValidation" (the suffix of Cap'n Proto's accessors).
std::string capitalized(std::string_view name);

}  // namespace volador::records
