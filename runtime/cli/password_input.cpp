#include "runtime/cli/password_input.hpp"

#include <fcntl.h>
#include <termios.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>

namespace volador::cli {
namespace {

std::string without_line_end(std::string line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  return line;
}

// A line read from the terminal `fd` with echo off (restored after).
Result<std::string> read_hidden(int fd, const std::string& prompt) {
  termios saved{};
  if (::tcgetattr(fd, &saved) != 0) return fail(Error::invalid_argument("no terminal to ask for the password on"));
  termios hidden = saved;
  hidden.c_lflag &= ~static_cast<tcflag_t>(ECHO);
  (void)::write(fd, prompt.data(), prompt.size());
  ::tcsetattr(fd, TCSAFLUSH, &hidden);
  std::string line;
  char c = 0;
  while (::read(fd, &c, 1) == 1 && c != '\n') line.push_back(c);
  ::tcsetattr(fd, TCSAFLUSH, &saved);
  (void)::write(fd, "\n", 1);
  return without_line_end(std::move(line));
}

}  // namespace

Result<std::string> read_password(bool from_stdin, const std::string& prompt) {
  Result<std::string> password = std::string();
  if (from_stdin) {
    std::string line;
    std::getline(std::cin, line);
    password = without_line_end(std::move(line));
  } else {
    const int tty = ::open("/dev/tty", O_RDWR | O_CLOEXEC);
    if (tty < 0) return fail(Error::invalid_argument("no terminal to ask for the password on: use --password-stdin"));
    password = read_hidden(tty, prompt);
    ::close(tty);
  }
  if (password && password->empty()) return fail(Error::invalid_argument("the password is empty"));
  return password;
}

}  // namespace volador::cli
