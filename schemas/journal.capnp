@0xc3a7e1f05d2b9a41;
# Journal records (storage/journal): values stored in RocksDB, one record per
# key. Every value is a complete record; keys only order them. capnpc-records
# makes each struct a plain C++ record in volador::storage
# (schemas/journal.records.hpp) with its conversion, so this file is the one
# definition of what the journal holds.
#
# Journals on disk must keep decoding (storage/journal/tests/compatibility_test.cpp):
# evolve by adding fields with new ordinals at the end; never renumber a field
# or change its type. Renaming a field or a struct is safe: names are not stored.

using Cxx = import "/capnp/c++.capnp";
using Records = import "records.capnp";
using States = import "states.capnp";
$Cxx.namespace("volador::journal_schema");
$Records.namespace("volador::storage");

# The enums once had their own copies here with the same numbers as those of
# states.capnp; an enum is stored as its number, so the bytes are the same.

struct ExperimentRecord {
  # An experiment: what was submitted and where it stands.
  id @0 :UInt64;
  name @1 :Text;
  configYaml @2 :Text;
  # the submitted distributed.yaml, verbatim
  configFileName @3 :Text;
  # as given at submission, for error messages
  state @4 :States.RunState;
  experimentSeed @5 :UInt32;
  progress @6 :Float64;
  # searcher progress, [0, 1]
  errorMessage @7 :Text;
  # why it ended in ERROR, else empty
  createdAtMs @8 :Int64;
  # unix epoch milliseconds
  endedAtMs @9 :Int64;
  # 0 while not terminal
  owner @10 :Text;
  # the user who submitted it; empty for experiments journaled before users
  # existed, which belong to the admin (master/users)
  archived @11 :Bool;
  # hidden from `experiment list` (only an ended experiment is archived)
  deleting @12 :Bool;
  # `experiment delete` has begun (master/experiment_deletion.hpp): hidden from
  # every list and refused every change; a restarted master finishes the deletion
  continuedFrom @13 :UInt64;
  # the experiment it continues (`experiment continue`, master/experiment_continuation.hpp); 0: none
  continues @14 :List(ContinuedTrial);
  # its trials' sources, by searcher request id (the first is request 1); empty: its config's searcher
  resourcePool @15 :Text;
  # the pool it was admitted to at submission (resources.resource_pool, or the
  # cluster's default then), which every trial of it asks for; empty for one
  # journaled before it was kept: its trials ask for resources.resource_pool
  killed @16 :Bool;
  # the user killed it (journaled before any trial is told): its unfinished
  # trials are killed, its searcher hears nothing more, and it ends CANCELED;
  # a restarted master finishes the kill. False in journals from before it was kept.
}

struct ContinuedTrial {
  # A trial that a continuing experiment trains more: one of its trials starts
  # from this trial's newest checkpoint with its hyperparameters and seed.
  sourceTrialId @0 :UInt64;
  checkpointUuid @1 :Text;
  hparams @2 :Text $Records.jsonValue;
  seed @3 :UInt32;
}

struct TrialRecord {
  # A trial of an experiment: its hyperparameters and where it stands.
  id @0 :UInt64;
  # cluster-wide trial id
  experimentId @1 :UInt64;
  requestId @2 :UInt64;
  # the searcher's id for it
  hparams @3 :Text $Records.jsonValue;
  # the hyperparameters (stored as JSON text)
  seed @4 :UInt32;
  state @5 :States.RunState;
  batchesTrained @6 :UInt64;
  restarts @7 :UInt32;
  runId @8 :UInt32;
  # increments each time the trial (re)starts
  errorMessage @9 :Text;
  # why it ended in ERROR, else empty
  createdAtMs @10 :Int64;
  # unix epoch milliseconds
  endedAtMs @11 :Int64;
  # 0 while not terminal
  runToken @12 :Text;
  # the current run's secret, presented by its ranks
  runAgents @13 :List(Text);
  # agents of the current run, node by node (rank order); empty: no live run
  preemptions @14 :UInt32;
  # times the scheduler had it checkpoint and give its slots to a more important or under-served experiment
  warmStart @15 :Text;
  # the checkpoint (of another trial) it starts from while it has none of its
  # own (`experiment continue`, pbt's exploit); empty: it starts from the beginning
  warmStartTrial @16 :UInt64;
  # the trial that checkpoint belongs to (pbt: the better trial it copies;
  # experiment continue: the trial it continues); 0: none
}

struct MetricValue {
  # One metric of a MetricMap (a $Records.map list of them).
  name @0 :Text;
  value @1 :Float64;
}

struct MetricRecord {
  # One metric report of a trial.
  trialId @0 :UInt64;
  kind @1 :States.MetricKind;
  batches @2 :UInt64;
  # total batches trained when reported (the step)
  metrics @3 :List(MetricValue) $Records.map;
  reportedAtMs @4 :Int64;
}

struct LogLine {
  # One line of a trial's output.
  trialId @0 :UInt64;
  seq @1 :UInt64;
  # assigned by the journal: 1, 2, 3, ... per trial
  timeMs @2 :Int64;
  stream @3 :Text;
  # "stdout", "stderr" or "system"
  text @4 :Text;
  # one line, no trailing newline
}

struct ArchiveRecord {
  # The packed model definition of an experiment (gzip-compressed tar, see storage/archives).
  bytes @0 :Data;
}

struct SearcherStateRecord {
  # The searcher's whole state (Searcher::save_state()).
  state @0 :Text $Records.jsonValue;
}

struct CounterRecord {
  # The last value a durable counter (Journal::next_id) handed out.
  value @0 :UInt64;
}

struct CheckpointRecord {
  # A checkpoint a trial took; its files lie in checkpoint storage.
  uuid @0 :Text;
  # the checkpoint's folder in checkpoint storage; never empty
  experimentId @1 :UInt64;
  trialId @2 :UInt64;
  batches @3 :UInt64;
  # total batches trained when it was taken
  runId @4 :UInt32;
  # the trial's run that wrote it
  validationMetrics @5 :List(MetricValue) $Records.map;
  # the validation at `batches`; empty when none
  state @6 :States.CheckpointState;
  totalBytes @7 :UInt64;
  createdAtMs @8 :Int64;
  scheduled @9 :Bool = true;
  # The workload plan asked for it (periodic, after a validation, at a
  # target); false for one taken only because the trial paused or closed
  # where it stood, which the plan's periodic count ignores.
}

struct UserRecord {
  # A user of the cluster (master/users). Keyed by name.
  name @0 :Text;
  # [a-z0-9_.-]{1,32}
  passwordHash @1 :Text;
  # libsodium's Argon2id encoded string (crypto_pwhash_str): algorithm, limits, salt and hash
  admin @2 :Bool;
  createdAtMs @3 :Int64;
  # unix epoch milliseconds
  disabled @4 :Bool;
  # a disabled user cannot log in and their tokens are refused
}

struct TokenRecord {
  # A login token, stored only as its hash (master/users). Keyed by tokenHash.
  tokenHash @0 :Text;
  # hex of the BLAKE2b hash (crypto_generichash) of the token's bytes
  userName @1 :Text;
  createdAtMs @2 :Int64;
  expiresAtMs @3 :Int64;
  # unix epoch milliseconds; refused from then on
  revoked @4 :Bool;
  # logged out
}

struct TrialProgress {
  # What an experiment asked of one of its trials and heard back
  # (master/search_log.hpp): what a restarted master tells its new actor.
  requestId @0 :UInt64;
  # the searcher's id for the trial
  target @1 :UInt64;
  # batches of the last ValidateAfter sent
  closing @2 :Bool;
  # CloseTrial sent
  validated @3 :UInt64;
  # batches of the last validation given to the searcher
  ended @4 :Bool;
  # the trial ended (and, unless the experiment was killed, the searcher was told)
}

enum SearcherInputKind {
  # Which call of runtime/search/searcher.hpp a SearcherInput records.
  trialCreated @0;
  validationCompleted @1;
  trialClosed @2;
  trialErrored @3;
  # on_trial_exited_early, ExitReason::errored
  trialCanceled @4;
  # on_trial_exited_early, ExitReason::user_canceled
  trialHparamsInvalid @5;
  # on_trial_exited_early, ExitReason::invalid_hparams
}

struct SearcherInput {
  # One call an experiment made on its searcher.
  kind @0 :SearcherInputKind;
  requestId @1 :UInt64;
  metric @2 :Float64;
  # validationCompleted: the searcher metric
  batches @3 :UInt64;
  # validationCompleted: total batches trained
}

struct SearchEventRecord {
  # One event of an experiment's search, journaled after the snapshot of its
  # whole state (SearcherStateRecord) in the batch of the records the event
  # caused. The snapshot, then these in order, rebuild the search.
  inputs @0 :List(SearcherInput);
  # what the searcher was told, in order
  trials @1 :List(TrialProgress);
  # the trials whose progress changed, as they are after the event
  shutdown @2 :Bool;
  # the searcher has asked for Shutdown
  searchFailed @3 :Bool;
  # ... as a failure
}

struct ExperimentMetadataRecord {
  # What a user changed of an experiment's description and labels after
  # submitting it (`experiment set`); without one, its config's. Kept apart
  # from ExperimentRecord, which the running experiment rewrites. Keyed by experimentId.
  experimentId @0 :UInt64;
  description @1 :Text;
  labels @2 :List(Text);
  changedAtMs @3 :Int64;
  # unix epoch milliseconds
  changedBy @4 :Text;
  # the user who last changed it
}

struct ModelRecord {
  # A model of the registry (master/model_registry.hpp). Keyed by name.
  name @0 :Text;
  # [A-Za-z0-9_.-]{1,64}
  description @1 :Text;
  owner @2 :Text;
  # the user who created it
  createdAtMs @3 :Int64;
}

struct ModelVersionRecord {
  # A checkpoint registered as a version of a model: where it came from, kept
  # whole even when that experiment is deleted. Keyed by (modelName, version).
  modelName @0 :Text;
  version @1 :UInt32;
  # 1, 2, 3, ... per model
  checkpointUuid @2 :Text;
  experimentId @3 :UInt64;
  trialId @4 :UInt64;
  batches @5 :UInt64;
  # batches trained when the checkpoint was taken
  hparams @6 :Text $Records.jsonValue;
  # the trial's hyperparameters
  metrics @7 :List(MetricValue) $Records.map;
  # the checkpoint's validation metrics (empty when it had none)
  registeredBy @8 :Text;
  createdAtMs @9 :Int64;
  path @10 :Text;
  # the checkpoint's folder in its storage when registered (its experiment's
  # checkpoint_storage may be gone with the experiment)
}
