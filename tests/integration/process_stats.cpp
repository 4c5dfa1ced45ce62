#include "tests/integration/process_stats.hpp"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <vector>

namespace volador::testing {
namespace {

std::string proc_file(pid_t pid, const char* name) { return "/proc/" + std::to_string(pid) + "/" + name; }

}  // namespace

long status_kib(pid_t pid, const std::string& key) {
  std::ifstream status(proc_file(pid, "status"));
  for (std::string line; std::getline(status, line);)
    if (line.starts_with(key + ":")) return std::stol(line.substr(key.size() + 1));
  return -1;
}

long cpu_ticks(pid_t pid) {
  std::ifstream stat(proc_file(pid, "stat"));
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  std::istringstream fields(text.substr(text.rfind(')') + 2));  // after "PID (NAME) "
  std::vector<std::string> values{std::istream_iterator<std::string>(fields), std::istream_iterator<std::string>()};
  return std::stol(values.at(11)) + std::stol(values.at(12));  // utime and stime, fields 14 and 15
}

long open_descriptors(pid_t pid) {
  return std::distance(std::filesystem::directory_iterator(proc_file(pid, "fd")), std::filesystem::directory_iterator{});
}

long soft_descriptor_limit(pid_t pid) {
  const std::string key = "Max open files";
  std::ifstream limits(proc_file(pid, "limits"));
  for (std::string line; std::getline(limits, line);)
    if (line.starts_with(key)) return std::stol(line.substr(key.size()));
  return -1;
}

}  // namespace volador::testing
