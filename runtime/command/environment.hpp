#pragma once
// Environment variables for a command: name -> value, ordered by name.

#include <map>
#include <string>

namespace volador::command {

using EnvironmentVariables = std::map<std::string, std::string>;

}  // namespace volador::command
