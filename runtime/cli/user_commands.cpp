#include "runtime/cli/user_commands.hpp"

#include <iostream>

#include "runtime/cli/commands.hpp"
#include "runtime/cli/password_input.hpp"
#include "runtime/cli/token_store.hpp"
#include "runtime/cli/views.hpp"

namespace volador::cli {

int login_user(MasterClient& client, const UserLogin& login) {
  auto password = read_password(login.password_stdin, "password for " + login.name + ": ");
  if (!password) return report(password.error());
  auto reply = client.login(login.name, *password);
  if (!reply) return report(reply.error());
  auto saved = save_token(login.token_file, login.master,
                          {.token = reply->token, .user = reply->user.name, .expires_at_ms = reply->expires_at_ms});
  if (!saved) return report(saved.error());
  std::cout << "logged in to " << login.master << " as " << reply->user.name << (reply->user.admin ? " (admin)" : "")
            << "\n";
  return 0;
}

int logout_user(MasterClient& client, const std::string& master, const std::filesystem::path& token_file) {
  auto revoked = client.logout();
  if (auto forgotten = forget_token(token_file, master); !forgotten) return report(forgotten.error());
  if (!revoked && revoked.error().code != ErrorCode::unauthenticated) return report(revoked.error());
  std::cout << "logged out of " << master << "\n";
  return 0;
}

int whoami(MasterClient& client, bool json) {
  auto user = client.whoami();
  if (!user) return report(user.error());
  if (json) std::cout << nlohmann::json(*user).dump(2) << "\n";
  else std::cout << user->name << (user->admin ? " (admin)" : "") << "\n";
  return 0;
}

int list_users(MasterClient& client, bool json) {
  auto list = client.users();
  if (!list) return report(list.error());
  std::cout << (json ? nlohmann::json(list->users).dump(2) + "\n" : render_table(*list));
  return 0;
}

int create_user(MasterClient& client, const std::string& name, bool admin, bool password_stdin) {
  auto password = read_password(password_stdin, "password for new user " + name + ": ");
  if (!password) return report(password.error());
  if (!password_stdin) {
    auto again = read_password(false, "the same password again: ");
    if (!again) return report(again.error());
    if (*again != *password) return report(Error::invalid_argument("the two passwords differ"));
  }
  auto user = client.create_user(name, *password, admin);
  if (!user) return report(user.error());
  std::cout << "created user " << user->name << (user->admin ? " (admin)" : "") << "\n";
  return 0;
}

}  // namespace volador::cli
