#pragma once
// The master's first start: with no user in the journal, it creates the
// admin (kFirstAdmin, "admin") with the password the operator gave (a file,
// else the VOLADOR_ADMIN_PASSWORD environment variable), else with a random
// one that it logs once, in one line, and writes to DATA/admin.password
// (mode 0600) for scripts. Later starts change nothing.

#include <filesystem>
#include <optional>
#include <string>

#include "master/users/user_directory.hpp"
#include "runtime/core/error.hpp"

namespace volador::master {

// Where the first admin's password comes from; neither set: a random one.
struct AdminPasswordSource {
  std::optional<std::filesystem::path> file;  // its first line is the password
  std::optional<std::string> value;           // e.g. VOLADOR_ADMIN_PASSWORD
};

// The file a random first-admin password is written to.
std::filesystem::path admin_password_file(const std::filesystem::path& data_dir);

// Creates the first admin when no user exists (see above). Errors: the file
// cannot be read or holds no password (naming it), a password the user rules
// refuse (invalid_argument), the journal or DATA/admin.password cannot be
// written (io).
Status ensure_first_admin(UserDirectory& users, const std::filesystem::path& data_dir,
                          const AdminPasswordSource& source);

}  // namespace volador::master
