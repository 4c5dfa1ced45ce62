#pragma once
// The `volador user` verbs: log in and out, who am I, create and list users.
// Each prints its result and returns the exit status (0, or 1 with the
// reason on stderr), as the other verbs (commands.hpp).

#include <filesystem>
#include <string>

#include "runtime/cli/master_client.hpp"

namespace volador::cli {

struct UserLogin {
  std::string master;  // HOST:PORT, the key of the stored token
  std::filesystem::path token_file;
  std::string name;
  bool password_stdin = false;
};

// Asks for the password, logs in and stores the token for the master.
int login_user(MasterClient& client, const UserLogin& login);
// Revokes the client's token on the master and forgets the stored one (also
// when the master no longer knows it).
int logout_user(MasterClient& client, const std::string& master, const std::filesystem::path& token_file);
int whoami(MasterClient& client, bool json);
int list_users(MasterClient& client, bool json);
// Asks for the new user's password (twice on a terminal) and creates the user.
int create_user(MasterClient& client, const std::string& name, bool admin, bool password_stdin);

}  // namespace volador::cli
