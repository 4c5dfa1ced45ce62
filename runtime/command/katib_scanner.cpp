#include "runtime/command/katib_scanner.hpp"

namespace volador::command {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_word(char c) { return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_name_char(char c) { return is_word(c) || c == '|' || c == '-'; }  // [\w|-]
bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }    // \s: space \t \n \v \f \r
bool is_sign(char c) { return c == '+' || c == '-'; }

// The first position at or after `pos` whose character fails `accept`.
std::size_t skip(std::string_view line, std::size_t pos, bool (*accept)(char)) {
  while (pos < line.size() && accept(line[pos])) ++pos;
  return pos;
}

// The end of the longest match of [+-]?\d*(\.\d+)?([Ee][+-]?\d+)? at `pos`
// (every part is optional, so greedy matching never backtracks).
std::size_t number_end(std::string_view line, std::size_t pos) {
  const auto at = [&](std::size_t i, bool (*accept)(char)) { return i < line.size() && accept(line[i]); };
  if (at(pos, is_sign)) ++pos;
  pos = skip(line, pos, is_digit);
  if (pos < line.size() && line[pos] == '.' && at(pos + 1, is_digit)) pos = skip(line, pos + 1, is_digit);
  if (pos < line.size() && (line[pos] == 'e' || line[pos] == 'E')) {
    std::size_t exponent = pos + 1;
    if (at(exponent, is_sign)) ++exponent;
    if (at(exponent, is_digit)) pos = skip(line, exponent, is_digit);
  }
  return pos;
}

}  // namespace

// A match can only start at the first character of a run of name characters
// (a later start in the run reaches the same end and so the same outcome),
// so a run not followed by `\s*=` is skipped whole.
std::vector<KatibMatch> find_katib_matches(std::string_view line) {
  std::vector<KatibMatch> matches;
  std::size_t pos = 0;
  while (pos < line.size()) {
    if (!is_name_char(line[pos])) {
      ++pos;
      continue;
    }
    const std::size_t name_end = skip(line, pos, is_name_char);
    const std::size_t equals = skip(line, name_end, is_space);
    if (equals == line.size() || line[equals] != '=') {
      pos = equals;
      continue;
    }
    const std::size_t value_begin = skip(line, equals + 1, is_space);
    const std::size_t value_end = number_end(line, value_begin);
    matches.push_back({line.substr(pos, name_end - pos), line.substr(value_begin, value_end - value_begin)});
    pos = value_end;
  }
  return matches;
}

}  // namespace volador::command
