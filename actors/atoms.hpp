#pragma once
// The CAF atoms that name Volador's messages. Each actor's header lists the
// messages it handles; payloads with structure are Cap'n Proto bytes
// (runtime/wire), lone ids travel as CAF integers.

#include <caf/atom.hpp>

namespace volador::actors {

// client -> master
using create_atom = caf::atom_constant<caf::atom("create")>;
using list_atom = caf::atom_constant<caf::atom("list")>;
using describe_atom = caf::atom_constant<caf::atom("describe")>;
using trial_atom = caf::atom_constant<caf::atom("trial")>;
using trials_atom = caf::atom_constant<caf::atom("trials")>;
using kill_trial_atom = caf::atom_constant<caf::atom("killtrial")>;
using logs_atom = caf::atom_constant<caf::atom("logs")>;
using agents_atom = caf::atom_constant<caf::atom("agents")>;
using archive_atom = caf::atom_constant<caf::atom("archive")>;
// client -> master: the experiment lifecycle and the model registry
using delete_atom = caf::atom_constant<caf::atom("delete")>;
using fork_atom = caf::atom_constant<caf::atom("fork")>;
using continue_atom = caf::atom_constant<caf::atom("continue")>;
using model_def_atom = caf::atom_constant<caf::atom("modeldef")>;
using set_metadata_atom = caf::atom_constant<caf::atom("setmeta")>;
using delete_checkpoint_atom = caf::atom_constant<caf::atom("delckpt")>;
using create_model_atom = caf::atom_constant<caf::atom("mkmodel")>;
using register_model_atom = caf::atom_constant<caf::atom("regmodel")>;
using models_atom = caf::atom_constant<caf::atom("models")>;
using model_atom = caf::atom_constant<caf::atom("model")>;
// client -> master: users and tokens
using login_atom = caf::atom_constant<caf::atom("login")>;
using logout_atom = caf::atom_constant<caf::atom("logout")>;
using whoami_atom = caf::atom_constant<caf::atom("whoami")>;
using users_atom = caf::atom_constant<caf::atom("users")>;
using create_user_atom = caf::atom_constant<caf::atom("mkuser")>;
// agent <-> master
using register_atom = caf::atom_constant<caf::atom("register")>;
using launch_atom = caf::atom_constant<caf::atom("launch")>;
using kill_atom = caf::atom_constant<caf::atom("kill")>;
using exited_atom = caf::atom_constant<caf::atom("exited")>;
using log_atom = caf::atom_constant<caf::atom("log")>;
using flush_atom = caf::atom_constant<caf::atom("flush")>;
using reconnected_atom = caf::atom_constant<caf::atom("reconn")>;
using orphaned_atom = caf::atom_constant<caf::atom("orphaned")>;
using adopt_atom = caf::atom_constant<caf::atom("adopt")>;
using idle_atom = caf::atom_constant<caf::atom("idle")>;
using work_disk_atom = caf::atom_constant<caf::atom("workdisk")>;
// rank worker <-> trial
using hello_atom = caf::atom_constant<caf::atom("hello")>;
using workload_atom = caf::atom_constant<caf::atom("workload")>;
using shutdown_atom = caf::atom_constant<caf::atom("shutdown")>;
using report_atom = caf::atom_constant<caf::atom("report")>;
using rejoin_atom = caf::atom_constant<caf::atom("rejoin")>;
// the trial thread of a rank worker -> its rank actor
using complete_atom = caf::atom_constant<caf::atom("complete")>;
// inside the master
using request_slots_atom = caf::atom_constant<caf::atom("reqslots")>;
using granted_atom = caf::atom_constant<caf::atom("granted")>;
using release_atom = caf::atom_constant<caf::atom("release")>;
using capacity_atom = caf::atom_constant<caf::atom("capacity")>;
using pools_atom = caf::atom_constant<caf::atom("pools")>;
using preempt_atom = caf::atom_constant<caf::atom("preempt")>;
using hold_expired_atom = caf::atom_constant<caf::atom("holdexp")>;
using decide_again_atom = caf::atom_constant<caf::atom("decideagn")>;
using reattach_timeout_atom = caf::atom_constant<caf::atom("reattach")>;
using journaled_atom = caf::atom_constant<caf::atom("journaled")>;
using logged_atom = caf::atom_constant<caf::atom("logged")>;
using train_to_atom = caf::atom_constant<caf::atom("trainto")>;
using close_atom = caf::atom_constant<caf::atom("close")>;
using park_atom = caf::atom_constant<caf::atom("park")>;
using validated_atom = caf::atom_constant<caf::atom("validated")>;
using trial_ended_atom = caf::atom_constant<caf::atom("trialend")>;
using attach_atom = caf::atom_constant<caf::atom("attach")>;
using detach_atom = caf::atom_constant<caf::atom("detach")>;
using listening_atom = caf::atom_constant<caf::atom("listening")>;
using checkpointed_atom = caf::atom_constant<caf::atom("ckpted")>;
// client -> master -> experiment / trial
using pause_atom = caf::atom_constant<caf::atom("pause")>;
using activate_atom = caf::atom_constant<caf::atom("activate")>;
using checkpoints_atom = caf::atom_constant<caf::atom("ckpts")>;

}  // namespace volador::actors
