#include "runtime/command/command_line.hpp"

#include "runtime/command/hparam_passing.hpp"

namespace volador::command {
namespace {

constexpr std::string_view kBlanks = " \t";
constexpr std::string_view kOperators = "|&;<>()";
constexpr std::string_view kExpansions = "$`";
constexpr std::string_view kEscapableInDoubleQuotes = "$`\"\\\n";

std::string column(std::size_t offset) { return "column " + std::to_string(offset + 1); }

Error needs_shell(std::string_view what, std::size_t offset) {
  return Error::invalid_argument(std::string(what) + " at " + column(offset) +
                                 " needs a shell, which Volador does not run for a command "
                                 "entrypoint: quote it, or write the command as sh -c '...'");
}

Error needs_shell(char c, std::size_t offset) { return needs_shell(std::string("'") + c + "'", offset); }

// Splits one command; each step consumes one character or one quoted part.
class Splitter {
 public:
  explicit Splitter(std::string_view text) : text_(text) {}

  Result<std::vector<std::string>> run() {
    while (pos_ < text_.size()) {
      if (auto status = step(); !status) return fail(status.error());
    }
    end_word();
    if (words_.empty()) return fail(Error::invalid_argument("the command is empty"));
    return std::move(words_);
  }

 private:
  Status step() {
    const char c = text_[pos_];
    if (kBlanks.contains(c)) return blank();
    if (c == '\n') return newline();
    if (c == '\'') return single_quoted();
    if (c == '"') return double_quoted();
    if (c == '\\') return escaped();
    if (placeholder()) return {};
    if (kOperators.contains(c) || kExpansions.contains(c)) return fail(needs_shell(c, pos_));
    append(c);
    ++pos_;
    return {};
  }

  Status blank() {
    end_word();
    ++pos_;
    return {};
  }

  // Newlines before the first word and after the last are blanks (a YAML
  // block scalar ends in one); between words they separate commands.
  Status newline() {
    const bool before_first = words_.empty() && !in_word_;
    const bool after_last = text_.find_first_not_of(" \t\n", pos_) == std::string_view::npos;
    if (before_first || after_last) return blank();
    return fail(needs_shell("a newline between words", pos_));
  }

  Status single_quoted() {
    const std::size_t close = text_.find('\'', pos_ + 1);
    if (close == std::string_view::npos) {
      return fail(Error::invalid_argument("unterminated ' opened at " + column(pos_)));
    }
    append(text_.substr(pos_ + 1, close - pos_ - 1));
    pos_ = close + 1;
    return {};
  }

  Status double_quoted() {
    const std::size_t open = pos_++;
    append("");
    for (; pos_ < text_.size(); ++pos_) {
      const char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        return {};
      }
      if (c == '\\' && pos_ + 1 < text_.size() && kEscapableInDoubleQuotes.contains(text_[pos_ + 1])) {
        if (text_[++pos_] != '\n') append(text_[pos_]);
      } else if (placeholder()) {
        --pos_;  // the loop steps past the placeholder's last character
      } else if (kExpansions.contains(c)) {
        return fail(needs_shell(c, pos_));
      } else {
        append(c);
      }
    }
    return fail(Error::invalid_argument("unterminated \" opened at " + column(open)));
  }

  // A hyperparameter placeholder (hparam_passing.hpp) is kept as it is, up to
  // its closing } after a name (its opening alone otherwise: the placeholder's
  // own check names what is wrong). False, consuming nothing, when none starts here.
  bool placeholder() {
    if (!text_.substr(pos_).starts_with(kPlaceholderOpen)) return false;
    constexpr std::string_view kNameCharacters =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-";
    const std::size_t after = text_.find_first_not_of(kNameCharacters, pos_ + kPlaceholderOpen.size());
    const bool closed = after != std::string_view::npos && text_[after] == '}';
    const std::size_t end = closed ? after + 1 : pos_ + kPlaceholderOpen.size();
    append(text_.substr(pos_, end - pos_));
    pos_ = end;
    return true;
  }

  Status escaped() {
    if (pos_ + 1 == text_.size()) {
      return fail(Error::invalid_argument("the \\ at " + column(pos_) +
                                          " ends the command and so escapes nothing"));
    }
    const char next = text_[pos_ + 1];
    if (next != '\n') append(next);
    pos_ += 2;
    return {};
  }

  void append(char c) { append(std::string_view(&c, 1)); }
  void append(std::string_view text) {
    word_ += text;
    in_word_ = true;
  }

  void end_word() {
    if (in_word_) words_.push_back(std::move(word_));
    word_.clear();
    in_word_ = false;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  std::string word_;
  bool in_word_ = false;
  std::vector<std::string> words_;
};

}  // namespace

Result<std::vector<std::string>> split_command_line(std::string_view command) {
  return Splitter(command).run();
}

}  // namespace volador::command
