#include <catch2/catch.hpp>

#include "runtime/command/command_line.hpp"

using volador::command::split_command_line;
using Words = std::vector<std::string>;

namespace {

Words split_ok(std::string_view command) {
  auto words = split_command_line(command);
  if (!words) FAIL("unexpected error: " << words.error().message);
  return *words;
}

std::string split_error(std::string_view command) {
  auto words = split_command_line(command);
  if (words) FAIL("accepted: " << command);
  return words.error().message;
}

}  // namespace

TEST_CASE("blanks separate words and runs of blanks count once") {
  CHECK(split_ok("python3 train.py --epochs 3") == Words{"python3", "train.py", "--epochs", "3"});
  CHECK(split_ok("  ./run.sh\t\ta  ") == Words{"./run.sh", "a"});
}

TEST_CASE("single quotes keep everything literally") {
  CHECK(split_ok(R"(echo 'a  b' '$HOME \n "x"')") == Words{"echo", "a  b", R"($HOME \n "x")"});
}

TEST_CASE("double quotes keep blanks and unescape only dollar backquote quote backslash and newline") {
  CHECK(split_ok(R"(echo "a  b" "q\"q" "back\\slash" "keep\n" "dollar\$")") ==
        Words{"echo", "a  b", "q\"q", "back\\slash", "keep\\n", "dollar$"});
  CHECK(split_ok("echo \"one\\\ntwo\"") == Words{"echo", "onetwo"});
}

TEST_CASE("an unquoted backslash keeps the next character and joins lines before a newline") {
  CHECK(split_ok(R"(echo a\ b \'x\' \\)") == Words{"echo", "a b", "'x'", "\\"});
  CHECK(split_ok("python3 train.py \\\n  --lr 1") == Words{"python3", "train.py", "--lr", "1"});
}

TEST_CASE("quoted parts join adjacent text and empty quotes give an empty word") {
  CHECK(split_ok(R"(a"b"'c'd '' "")") == Words{"abcd", "", ""});
  CHECK(split_ok(R"(--name="two words")") == Words{"--name=two words"});
}

TEST_CASE("globs and tildes pass through unexpanded") {
  CHECK(split_ok("ls *.txt ~/x a?b #c") == Words{"ls", "*.txt", "~/x", "a?b", "#c"});
}

TEST_CASE("newlines around the command are blanks") {
  CHECK(split_ok("\n./run.sh --x 1\n\n") == Words{"./run.sh", "--x", "1"});
}

TEST_CASE("unterminated quotes are errors naming the column of the opening quote") {
  CHECK(split_error("echo 'abc") == "unterminated ' opened at column 6");
  CHECK(split_error(R"(echo "a\"bc)") == "unterminated \" opened at column 6");
}

TEST_CASE("a trailing backslash is an error") {
  CHECK(split_error("echo a\\") == "the \\ at column 7 ends the command and so escapes nothing");
}

TEST_CASE("an empty command is an error") {
  CHECK(split_error("") == "the command is empty");
  CHECK(split_error(" \t\n") == "the command is empty");
}

TEST_CASE("shell operators and expansions are errors that suggest quoting or sh -c") {
  CHECK(split_error("python3 train.py > log.txt") ==
        "'>' at column 18 needs a shell, which Volador does not run for a command entrypoint: "
        "quote it, or write the command as sh -c '...'");
  for (const auto* command : {"a | b", "a && b", "a; b", "a < in", "(a)", "echo $HOME", "echo `date`",
                              "echo \"$HOME\""}) {
    CAPTURE(command);
    CHECK(split_error(command).find("needs a shell") != std::string::npos);
  }
  CHECK(split_error("./a.sh\n./b.sh").starts_with("a newline between words at column 7 needs a shell"));
  CHECK(split_ok("sh -c 'a | b > c; echo $HOME'") == Words{"sh", "-c", "a | b > c; echo $HOME"});
}

TEST_CASE("hyperparameter placeholders are kept as they stand, quoted or not, and other dollars still need a shell") {
  CHECK(split_ok(R"(python3 train.py --lr ${hparams.lr} "--name=${hparams.opt.name} x" --w=${hparams.a}${hparams.b})") ==
        Words{"python3", "train.py", "--lr", "${hparams.lr}", "--name=${hparams.opt.name} x", "--w=${hparams.a}${hparams.b}"});
  // Left open or badly named, a placeholder is kept too: the placeholder's own check says what is wrong.
  CHECK(split_ok("train ${hparams.lr") == Words{"train", "${hparams.lr"});
  CHECK(split_error("train ${HOME}").find("'$' at column 7 needs a shell") != std::string::npos);
}
