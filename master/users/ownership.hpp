#pragma once
// Who owns an experiment and who may change it (pause, activate, kill,
// archive it or kill one of its trials): its owner or an admin. Experiments
// journaled before users existed have no owner recorded; they belong to the
// first admin, `kFirstAdmin` ("admin"). Pure.

#include <string>

#include "master/users/user_directory.hpp"
#include "storage/journal/journal.hpp"

namespace volador::master {

// The experiment's owner: its recorded one, else kFirstAdmin.
std::string owner_of(const storage::ExperimentRecord& experiment);

// permission_denied "experiment N belongs to OWNER: only its owner or an
// admin can WHAT it" unless `user` is an admin or the owner.
Status check_may_change(const User& user, const storage::ExperimentRecord& experiment, std::string_view what);

}  // namespace volador::master
