#pragma once
// The typed interfaces of the master's actors: every message each one
// handles, with its payload and reply, checked by the compiler at every send.
// What each actor does with them is in its own header. Remote peers (the
// CLI, agents, rank workers) reach the gateway through a dynamically typed
// handle, checked against GatewayActor when their message arrives.

#include <cstdint>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "actors/atoms.hpp"
#include "runtime/core/states.hpp"
#include "runtime/scheduling/slot_request.hpp"
#include "runtime/wire/codec.hpp"

namespace volador::actors {

// An agent (agent_actor.hpp). Trials and the pool reach it across the
// network; handles travel in messages dynamically typed and are cast back.
using AgentActor = caf::typed_actor<
    // a trial: start one rank worker (LaunchSpec; the trial's handle) -> "" once started, else why the agent
    // starts no trial now (its work disk is short of space: the trial waits for other slots); an error: it failed
    caf::replies_to<launch_atom, wire::Bytes, caf::actor>::with<std::string>,
    // a trial: kill its workers; the pool: kill those of one run (trial, run)
    caf::reacts_to<kill_atom, std::uint64_t>, caf::reacts_to<kill_atom, std::uint64_t, std::uint32_t>,
    // a trial that took a run (trial, run) back after a master restart: report its workers to it
    caf::reacts_to<adopt_atom, std::uint64_t, std::uint32_t, caf::actor>,
    // itself: a worker process (by the agent's number for it) ended (WorkerExit) or, warm, finished its
    // trial (WorkerFinished); ship buffered output; the master is back; an outage's patience ran out
    caf::reacts_to<exited_atom, std::uint64_t, wire::Bytes>, caf::reacts_to<idle_atom, std::uint64_t, wire::Bytes>,
    caf::reacts_to<flush_atom>, caf::reacts_to<reconnected_atom, caf::actor>, caf::reacts_to<orphaned_atom, std::uint32_t>>;

// Slots of one agent granted to a trial; a grant lists its agents in rank
// order, and each agent's ranks take its slots in the order listed.
struct GrantedAgent {
  AgentActor agent;
  std::string agent_id;
  std::vector<std::uint32_t> slot_indices;
  [[nodiscard]] std::uint32_t slots() const { return static_cast<std::uint32_t>(slot_indices.size()); }
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, GrantedAgent& x) {
  return f(caf::meta::type_name("GrantedAgent"), x.agent, x.agent_id, x.slot_indices);
}

}  // namespace volador::actors

namespace volador::scheduling {

// How a trial's experiment shares its pool (its pool empty: the cluster's default), in the pool's messages.
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, ExperimentShare& x) {
  return f(caf::meta::type_name("ExperimentShare"), x.experiment_id, x.pool, x.priority, x.weight);
}

}  // namespace volador::scheduling

namespace volador::actors {

// One trial (trial_actor.hpp).
using TrialActor = caf::typed_actor<
    // experiment: train to this many batches in all, then validate
    caf::reacts_to<train_to_atom, std::uint64_t>,
    // experiment: stop gracefully when idle
    caf::reacts_to<close_atom>,
    // experiment: the search waits for other trials; give the slots back once the target's work is done
    caf::reacts_to<park_atom>,
    // experiment: checkpoint and free the slots / resume
    caf::reacts_to<pause_atom>, caf::reacts_to<activate_atom>,
    // experiment or a user (through the gateway): stop now, CANCELED
    caf::reacts_to<kill_atom>,
    // pool: the slots are the trial's; checkpoint and give them back for this experiment, then wait for slots again
    caf::reacts_to<granted_atom, std::vector<GrantedAgent>>, caf::reacts_to<preempt_atom, std::uint64_t>,
    // a rank worker reports in (through the gateway): RankHello -> RankGroup, once every rank has
    caf::replies_to<hello_atom, wire::Bytes, caf::actor>::with<wire::Bytes>,
    // a rank of the run a restarted master found live reports in again: RankRejoin -> accepted
    caf::replies_to<rejoin_atom, wire::Bytes, caf::actor>::with<bool>,
    // itself: the run (by number) did not come back in time
    caf::reacts_to<reattach_timeout_atom, std::uint32_t>,
    // the journal's writer thread: a run's batch of reports (by number) is written (error empty) or not
    caf::reacts_to<journaled_atom, std::uint32_t, std::uint64_t, std::string>,
    // the journal's writer thread: a message of output (by the trial's number for it) is written (error empty) or not
    caf::reacts_to<logged_atom, std::uint64_t, std::string>,
    // agent: the worker's output (LogLines) -> true once its lines are journaled (false at once when it takes
    // none: another run's), so the agent ships no faster than the journal writes; the worker's end (WorkerExit)
    caf::replies_to<log_atom, wire::Bytes>::with<bool>, caf::reacts_to<exited_atom, wire::Bytes>,
    // a command rank: metrics its command printed (MetricReports) -> the last batch journaled
    caf::replies_to<report_atom, wire::Bytes>::with<std::uint64_t>>;

// One experiment (experiment_actor.hpp).
using ExperimentActor = caf::typed_actor<
    // a trial (by searcher request id): a validation of the searcher metric after some batches
    caf::reacts_to<validated_atom, std::uint64_t, double, std::uint64_t>,
    // a trial checkpointed (its request id), or the journal wrote a checkpoint record (0): collect
    // the ones the policy no longer keeps
    caf::reacts_to<checkpointed_atom, std::uint64_t>,
    // a trial ended in this state
    caf::reacts_to<trial_ended_atom, std::uint64_t, RunState>,
    // from itself: a batch of its search state was not written (why); the next one is a snapshot
    caf::reacts_to<journaled_atom, std::string>,
    // from itself: its kill was written (empty) or not (why); the users' kills are answered
    caf::reacts_to<journaled_atom, kill_atom, std::string>,
    // a user (through the gateway): each answered once journaled
    caf::replies_to<pause_atom>::with<bool>, caf::replies_to<activate_atom>::with<bool>,
    caf::replies_to<kill_atom>::with<bool>>;

// The resource pool (resource_pool_actor.hpp).
using PoolActor = caf::typed_actor<
    // an agent offers its slots (AgentInfo)
    caf::replies_to<register_atom, wire::Bytes, caf::actor>::with<bool>,
    // a trial asks for its slots, sharing its experiment's pool, on agents that run images when it needs them
    // (environment.image); answered later with granted_atom (or asked to make room with preempt_atom once granted)
    caf::reacts_to<request_slots_atom, std::uint64_t, std::uint32_t, scheduling::ExperimentShare, bool, TrialActor>,
    // a trial gives its slots (granted or asked for) back
    caf::reacts_to<release_atom, std::uint64_t>,
    // an agent (its handle added by the gateway) reports its work disk (WorkDiskReport): one that refuses
    // trials is given none until it reports it starts them again
    caf::reacts_to<work_disk_atom, wire::Bytes, caf::actor>,
    // a new experiment's pool (resources.resource_pool, empty: the default), slots per trial, rank
    // limits (resources.memory_limit, max_processes) and the image fields it sets (master/image_admission.hpp)
    // -> the pool its trials go to; invalid_argument for an unknown pool, or one whose agents can never fit
    // a trial (those that run images, for an image), allow its limits, or where none runs images
    caf::replies_to<capacity_atom, std::string, std::uint32_t, std::uint64_t, std::uint32_t,
                    std::vector<std::string>>::with<std::string>,
    // agents, their pools, labels, slots and trials (AgentList); the pools, their use and queues (PoolList)
    caf::replies_to<agents_atom>::with<wire::Bytes>, caf::replies_to<pools_atom>::with<wire::Bytes>,
    // a restarted trial claims its live run (trial, run, agents in rank order, slots, its experiment's share)
    caf::replies_to<adopt_atom, std::uint64_t, std::uint32_t, std::vector<std::string>, std::uint32_t,
                    scheduling::ExperimentShare>::with<std::vector<GrantedAgent>>,
    // itself: a held run (trial, run) was not claimed in time
    caf::reacts_to<hold_expired_atom, std::uint64_t, std::uint32_t>,
    // itself: the time (system_now_ms) a decision asked to be decided again at
    caf::reacts_to<decide_again_atom, std::int64_t>>;

// The master's answers to clients' questions (query_actors.hpp), each kind
// on a thread of its own, so that neither the gateway (which routes rank
// workers to their trials) nor a quick question waits behind a long one. The
// gateway checks the token and hands the question on; the answer goes to the
// client. Errors as the gateway's (not_found for an unknown id).
//
// From the read model (master/read_model.hpp), reading no metric history:
using SummaryQueryActor = caf::typed_actor<
    // the experiments (ExperimentList; archived ones only when the flag is set)
    caf::replies_to<list_atom, bool>::with<wire::Bytes>,
    // one experiment and its trials (ExperimentDetail)
    caf::replies_to<describe_atom, std::uint64_t>::with<wire::Bytes>,
    // the trials of an experiment, or of every experiment for 0 (TrialList); one trial (TrialSummary)
    caf::replies_to<trials_atom, std::uint64_t>::with<wire::Bytes>,
    caf::replies_to<trial_atom, std::uint64_t>::with<wire::Bytes>>;

// From the journal's histories:
using HistoryQueryActor = caf::typed_actor<
    // one trial and its metric reports, each series cut to at most N points, 0: all (TrialDetail)
    caf::replies_to<trial_atom, std::uint64_t, std::uint32_t>::with<wire::Bytes>,
    // a trial's log lines after a sequence number (LogBatch)
    caf::replies_to<logs_atom, std::uint64_t, std::uint64_t>::with<wire::Bytes>,
    // checkpoints of an experiment and trial (0 = any), or the one with a uuid (CheckpointList)
    caf::replies_to<checkpoints_atom, std::uint64_t, std::uint64_t>::with<wire::Bytes>,
    caf::replies_to<checkpoints_atom, std::string>::with<wire::Bytes>>;

// The gateway's password work (master_actor.cpp), on a thread of its own so
// that Argon2id's ~0.1 s per hash never holds up the gateway: a login
// (name, password -> LoginReply) and creating a user (the caller's name and
// admin flag, the new user's name, password, admin flag -> UserInfo).
using PasswordActor = caf::typed_actor<
    caf::replies_to<login_atom, std::string, std::string>::with<wire::Bytes>,
    caf::replies_to<create_user_atom, std::string, bool, std::string, std::string, bool>::with<wire::Bytes>>;

// The master's front door (master_actor.hpp), published on the master's port.
// Structured payloads are Cap'n Proto bytes (runtime/wire); errors come back
// as caf::error in the "volador" category (actors/caf_error.hpp).
// A client's message carries its login token (master/users) right after the
// atom; the gateway answers `unauthenticated` for a missing, invalid or
// expired one, and `permission_denied` when the user may not change the
// experiment (neither its owner nor an admin).
using GatewayActor = caf::typed_actor<
    // a client: submit an experiment, owned by the token's user (CreateExperimentRequest -> CreateExperimentReply)
    caf::replies_to<create_atom, std::string, wire::Bytes>::with<wire::Bytes>,
    // a client: the experiments (ExperimentList; archived ones only when the flag is set),
    // one experiment (ExperimentDetail), the trials of one or (0) all (TrialList), one trial's
    // summary (TrialSummary), one trial with each metric series cut to at most N points, 0: all
    // (TrialDetail); SummaryQueryActor and HistoryQueryActor answer them
    caf::replies_to<list_atom, std::string, bool>::with<wire::Bytes>,
    caf::replies_to<describe_atom, std::string, std::uint64_t>::with<wire::Bytes>,
    caf::replies_to<trials_atom, std::string, std::uint64_t>::with<wire::Bytes>,
    caf::replies_to<trial_atom, std::string, std::uint64_t>::with<wire::Bytes>,
    caf::replies_to<trial_atom, std::string, std::uint64_t, std::uint32_t>::with<wire::Bytes>,
    // a client: a trial's log lines after a sequence number (LogBatch)
    caf::replies_to<logs_atom, std::string, std::uint64_t, std::uint64_t>::with<wire::Bytes>,
    // a client: agents and their slots (AgentList), the resource pools (PoolList), from the pool
    caf::replies_to<agents_atom, std::string>::with<wire::Bytes>, caf::replies_to<pools_atom, std::string>::with<wire::Bytes>,
    // a client: pause, activate or kill an experiment; kill a trial (its owner or an admin)
    caf::replies_to<pause_atom, std::string, std::uint64_t>::with<bool>,
    caf::replies_to<activate_atom, std::string, std::uint64_t>::with<bool>,
    caf::replies_to<kill_atom, std::string, std::uint64_t>::with<bool>,
    caf::replies_to<kill_trial_atom, std::string, std::uint64_t>::with<bool>,
    // a client: archive (true) or unarchive an ended experiment (its owner or an admin)
    caf::replies_to<archive_atom, std::string, std::uint64_t, bool>::with<bool>,
    // a client: checkpoints of an experiment and trial (0 = any), or the one with a uuid (CheckpointList)
    caf::replies_to<checkpoints_atom, std::string, std::uint64_t, std::uint64_t>::with<wire::Bytes>,
    caf::replies_to<checkpoints_atom, std::string, std::string>::with<wire::Bytes>,
    // a client (master/lifecycle_requests.hpp, master/model_registry.hpp): delete an ended experiment;
    // fork or continue one (ForkExperimentRequest -> CreateExperimentReply); its project archive (ModelDefinition);
    // set its description or labels (ExperimentMetadataChange); delete a checkpoint by uuid (changes: its
    // owner or an admin); create a model (name, description -> ModelSummary); register a checkpoint as a
    // model's next version (name, uuid -> ModelVersion); the models (ModelList); one model (ModelDetail)
    caf::replies_to<delete_atom, std::string, std::uint64_t>::with<bool>,
    caf::replies_to<fork_atom, std::string, wire::Bytes>::with<wire::Bytes>,
    caf::replies_to<continue_atom, std::string, wire::Bytes>::with<wire::Bytes>,
    caf::replies_to<model_def_atom, std::string, std::uint64_t>::with<wire::Bytes>,
    caf::replies_to<set_metadata_atom, std::string, wire::Bytes>::with<bool>,
    caf::replies_to<delete_checkpoint_atom, std::string, std::string>::with<bool>,
    caf::replies_to<create_model_atom, std::string, std::string, std::string>::with<wire::Bytes>,
    caf::replies_to<register_model_atom, std::string, std::string, std::string>::with<wire::Bytes>,
    caf::replies_to<models_atom, std::string>::with<wire::Bytes>,
    caf::replies_to<model_atom, std::string, std::string>::with<wire::Bytes>,
    // a client, without a token: log in (name, password -> LoginReply)
    caf::replies_to<login_atom, std::string, std::string>::with<wire::Bytes>,
    // a client: revoke its token; who it is (UserInfo); every user (UserList, admins only);
    // create a user (name, password, admin -> UserInfo, admins only)
    caf::replies_to<logout_atom, std::string>::with<bool>, caf::replies_to<whoami_atom, std::string>::with<wire::Bytes>,
    caf::replies_to<users_atom, std::string>::with<wire::Bytes>,
    caf::replies_to<create_user_atom, std::string, std::string, std::string, bool>::with<wire::Bytes>,
    // an agent offers its slots (AgentInfo; to the pool), reports its work disk (WorkDiskReport; to the pool)
    caf::replies_to<register_atom, wire::Bytes, caf::actor>::with<bool>, caf::reacts_to<work_disk_atom, wire::Bytes>,
    // a rank worker of a trial reports in (RankHello -> RankGroup) or back after a master restart
    // (RankRejoin); routed to the trial by its id, decoded only there
    caf::replies_to<hello_atom, std::uint64_t, wire::Bytes, caf::actor>::with<wire::Bytes>,
    caf::replies_to<rejoin_atom, std::uint64_t, wire::Bytes, caf::actor>::with<bool>,
    // a trial actor: route its ranks to it, or no longer
    caf::reacts_to<attach_atom, std::uint64_t, TrialActor>, caf::reacts_to<detach_atom, std::uint64_t>,
    // the node: the address rank workers use, once published; the first one also recovers
    // unfinished experiments
    caf::reacts_to<listening_atom, std::string, std::uint16_t>>;

}  // namespace volador::actors
