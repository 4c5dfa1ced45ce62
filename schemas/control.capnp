@0x9f1c2d3e4b5a6978;
# Control-plane messages between actors and nodes: the one definition of each
# record. capnpc-records makes each struct a plain C++ record in
# volador::wire (schemas/control.records.hpp: snake_case members, enums,
# std::optional for `:union { none; value; }`, the JSON `--json` prints) and
# its conversion; they travel as Cap'n Proto bytes (standard framing) inside
# CAF messages (runtime/wire/codec.hpp). A message whose only content is one
# id travels as a CAF integer instead.

using Records = import "records.capnp";
using States = import "states.capnp";
$Records.namespace("volador::wire");

# One metric of a MetricMap (a `$Records.map` list of them).
struct MetricEntry {
  name @0 :Text;
  value @1 :Float64;
}

struct LogEntry {
  seq @0 :UInt64;      # 0 until the journal assigns one
  timeMs @1 :Int64;
  stream @2 :Text;     # stdout | stderr | system
  text @3 :Text;
}

# --- client -> master ---

struct CreateExperimentRequest {
  configYaml @0 :Text;
  configFileName @1 :Text;
  archive @2 :Data;    # the project folder, packed (storage/archives)
  continueFrom @3 :UInt64;  # an ended experiment whose trials this one trains more (`experiment continue`); 0: none
}

struct CreateExperimentReply {
  experimentId @0 :UInt64;   # 0 when refused
  errors @1 :List(Text);     # why it was refused, one line each
}

struct TrialSummary {
  id @0 :UInt64;
  experimentId @1 :UInt64;
  requestId @2 :UInt64;      # the searcher's id for it
  state @3 :States.RunState;
  hparams @4 :Text $Records.json;  # the hyperparameters, a JSON object
  seed @5 :UInt32;
  batchesTrained @6 :UInt64;
  restarts @7 :UInt32;
  bestValidation :union {    # the best value of the searcher metric so far
    none @8 :Void;
    value @9 :Float64;
  }
  error @10 :Text;           # why it ended in ERROR, else empty
  createdAtMs @11 :Int64;    # unix epoch milliseconds
  endedAtMs @12 :Int64;      # 0 while not ended
  latestTraining @13 :List(MetricEntry) $Records.map;    # the metrics of its training report with the most batches
  latestValidation @14 :List(MetricEntry) $Records.map;  # ... and of its validation report with the most batches
  preemptions @15 :UInt32;   # times it checkpointed and gave its slots to another experiment (resources.priority, weight)
  warmStartTrial @16 :UInt64;  # the trial whose checkpoint it started from (pbt's exploit, experiment continue); 0: none
}

# A trial's summary as the master's read model keeps it (master/read_model.*),
# with which reports it shows: what a later report or a deletion of reports is
# weighed against. Kept packed in memory once the trial ended, and in a file
# once its experiment ended (master/summary_spill.*).
struct KeptTrialSummary {
  summary @0 :TrialSummary;
  bestBatches @1 :UInt64;      # the fewest batches at which the best was reported
  latestTraining :union {      # the batches of its latest training report
    none @2 :Void;
    value @3 :UInt64;
  }
  latestValidation :union {    # ... and of its latest validation report
    none @4 :Void;
    value @5 :UInt64;
  }
}

struct ExperimentSummary {
  id @0 :UInt64;
  name @1 :Text;
  state @2 :States.RunState;
  progress @3 :Float64;      # the searcher's, [0, 1]
  searcher @4 :Text;
  metric @5 :Text;
  smallerIsBetter @6 :Bool;
  numTrials @7 :UInt32;
  best :union {              # the best trial so far
    none @8 :Void;
    value @9 :BestTrial;
  }
  createdAtMs @10 :Int64;
  endedAtMs @11 :Int64;
  error @12 :Text;           # why it ended in ERROR, else empty
  owner @13 :Text;           # the user who submitted it ("admin" for experiments from before users)
  archived @14 :Bool;        # hidden from `experiment list` unless --all
  labels @15 :List(Text);    # the config's labels
  workspace @16 :Text;       # the config's workspace and project (both empty when it names none)
  project @17 :Text;
  trialStates @18 :List(TrialStateCount);  # how many of its trials are in each state (states with none left out)
}

# How many trials of an experiment are in one state.
struct TrialStateCount {
  state @0 :States.RunState;
  count @1 :UInt32;
}

# An experiment's best trial and its searcher metric.
struct BestTrial {
  metric @0 :Float64;
  trialId @1 :UInt64;
}

struct ExperimentList {
  experiments @0 :List(ExperimentSummary);
}

struct ExperimentDetail {
  summary @0 :ExperimentSummary $Records.flatten;
  description @1 :Text;
  config @2 :Text;           # the submitted distributed.yaml
  trials @3 :List(TrialSummary);
}

struct MetricPoint {
  kind @0 :States.MetricKind;
  batches @1 :UInt64;
  reportedAtMs @2 :Int64;
  metrics @3 :List(MetricEntry) $Records.map;
}

# A trial and its metric reports, each series (one metric of one kind)
# downsampled on read unless every point was asked for (master/metric_downsampling.hpp).
struct TrialDetail {
  summary @0 :TrialSummary $Records.flatten;
  metrics @1 :List(MetricPoint);  # a report cut by downsampling keeps only the metrics kept of it
  totalReports @2 :UInt64;        # how many reports the trial has
  downsampled @3 :Bool;           # some series lost points
}

# The trials of one experiment, or of all of them (by id).
struct TrialList {
  trials @0 :List(TrialSummary);
}

struct LogBatch {
  lines @0 :List(LogEntry);
  lastSeq @1 :UInt64;  # the seq of the trial's newest line when read (0: none yet)
}

struct CheckpointInfo {
  uuid @0 :Text;
  experimentId @1 :UInt64;
  trialId @2 :UInt64;
  batches @3 :UInt64;
  state @4 :States.CheckpointState;
  totalBytes @5 :UInt64;
  createdAtMs @6 :Int64;
  metrics @7 :List(MetricEntry) $Records.map;  # the validation at `batches`, if any
  path @8 :Text;             # where it lies on the shared file system
}

struct CheckpointList {
  checkpoints @0 :List(CheckpointInfo);
}

# One slot an agent offers: a CPU slot, or a GPU with its device.
struct SlotSpec {
  type @0 :States.SlotType;
  deviceUuid @1 :Text;       # GPU slots: what CUDA_VISIBLE_DEVICES names
  model @2 :Text;            # GPU slots: the GPU model
  memoryBytes @3 :UInt64;    # GPU slots: device memory
}

# An agent's label (`volador-node agent --label key=value`).
struct AgentLabel {
  key @0 :Text;
  value @1 :Text;
}

# The cluster as the resource pool sees it (`volador agent list`).
struct AgentStatus {
  agentId @0 :Text;
  hostname @1 :Text;
  slots @2 :List(SlotSpec);
  slotTrials @3 :List(UInt64);  # per slot: the trial using it, 0 when free
  pool @4 :Text;                # the resource pool it joined
  labels @5 :List(AgentLabel) $Records.map;
  workDiskFreeBytes @6 :UInt64; # free space of its work folder's file system, as it last reported
  workDiskRefusal @7 :Text;     # why it starts no trial now (its work disk is short of space); empty: it does
  containerRuntime @8 :Text;    # the program it runs images with (podman, docker); empty: it runs none
}

struct AgentList {
  agents @0 :List(AgentStatus);  # by agent id
}

# --- agent <-> master ---

struct AgentInfo {
  agentId @0 :Text;
  hostname @1 :Text;
  slots @2 :List(SlotSpec);
  workers @3 :List(RunningWorker);  # still running from before a master restart
  pool @4 :Text;             # the resource pool it joins (--pool); empty: the cluster's default for its slots
  labels @5 :List(AgentLabel) $Records.map;  # --label key=value
  memoryLimitBytes @6 :UInt64;  # the most memory one rank may use there (--rank-memory-limit); 0: no limit
  maxProcesses @7 :UInt32;      # the most processes one rank may run there (--rank-max-processes); 0: no limit
  workDiskFreeBytes @8 :UInt64; # free space of its work folder's file system when it registered
  workDiskRefusal @9 :Text;     # why it starts no trial now (its work disk is short of space); empty: it does
  containerRuntime @10 :Text;   # the program it runs environment.image with (podman, docker); empty: it runs no images
}

# An agent's work disk, reported when whether it starts trials changes (at
# once) and every 30 s: the pool gives no new trial to an agent refusing them.
struct WorkDiskReport {
  agentId @0 :Text;
  freeBytes @1 :UInt64;  # free space of its work folder's file system
  refusal @2 :Text;      # why it starts no trial now; empty: it does
}

# One resource pool (`volador pool list`): the cluster config's entry, its
# capacity, use and queue, and the experiments sharing it.
struct PoolStatus {
  name @0 :Text;
  description @1 :Text;
  scheduler @2 :Text;          # the scheduler's type ("priority")
  preemption @3 :Bool;
  minRunTimeMs @4 :UInt64;     # a trial is not preempted before it has run this long
  agents @5 :UInt32;
  slots @6 :UInt32;            # of every agent in the pool
  usedSlots @7 :UInt32;        # allocated or held
  runningTrials @8 :UInt32;
  pendingTrials @9 :UInt32;    # queued
  pendingSlots @10 :UInt32;    # asked for by the queued trials, together
  preemptingTrials @11 :UInt32;  # asked to checkpoint and release, not released yet
  experiments @12 :List(PoolExperiment);
}

# An experiment with trials running or queued in a pool, and its fair share.
struct PoolExperiment {
  experimentId @0 :UInt64;
  priority @1 :UInt32;
  weight @2 :Float64;
  allocatedSlots @3 :UInt32;
  runningTrials @4 :UInt32;
  pendingTrials @5 :UInt32;
  idealSlots @6 :Float64;      # under an ideal split of the pool (priority, then weight)
}

struct PoolList {
  pools @0 :List(PoolStatus);  # in the cluster config's order
}

# A rank worker an agent kept running while it had no master.
struct RunningWorker {
  trialId @0 :UInt64;
  runId @1 :UInt32;
  rank @2 :UInt32;
  slot @3 :UInt32;           # the agent's slot it runs on
}

# What an agent needs to start one rank worker of a trial.
struct LaunchSpec {
  trialId @0 :UInt64;
  experimentId @1 :UInt64;
  runId @2 :UInt32;
  rank @3 :UInt32;
  worldSize @4 :UInt32 = 1;
  entrypoint @5 :Text;
  hparamsJson @6 :Text;
  seed @7 :UInt32;
  globalBatchSize @8 :UInt64;
  dataJson @9 :Text;
  environmentVariables @10 :List(Text);
  archive @11 :Data;
  masterHost @12 :Text;
  masterPort @13 :UInt16;
  token @14 :Text;           # per-run secret the rank presents to the master
  restorePath @15 :Text;     # checkpoint folder to resume from; empty: start fresh
  localRank @16 :UInt32;     # this rank's index among the trial's ranks on its agent
  localSize @17 :UInt32 = 1;     # the trial's ranks on this agent
  nodeIndex @18 :UInt32;     # this agent's index among the trial's agents
  nodeCount @19 :UInt32 = 1;     # agents the trial spans
  slot @20 :UInt32;          # the agent's slot the rank is bound to (its GPU, for GPU slots)
  killGracePeriodMs @21 :UInt64 = 10000;  # resources.kill_grace_period: from SIGTERM to SIGKILL when stopped
  rankCertificate @22 :Text;  # PEM: the identity the master issued for this launch (tls/rank_name.hpp), which
  rankPrivateKey @23 :Text;   # the worker presents instead of its agent's; the key never reaches the trial file
  bindMounts @24 :List(BindMount);  # the config's bind_mounts, shown in the rank's sandbox
  shmSizeBytes @25 :UInt64 = 4294967296;  # resources.shm_size: the size of the rank's own /dev/shm; 0: not set (4 GiB)
  checkpointFolder @26 :Text;  # the checkpoint store's folder, which the rank writes into (shown in its sandbox)
  memoryLimitBytes @27 :UInt64;  # resources.memory_limit: the rank's processes together; 0: the agent's limit
  maxProcesses @28 :UInt32;      # resources.max_processes: alive at once in the rank; 0: the agent's limit
  image @29 :Text;               # environment.image: the rank runs in a container of it; empty: in the agent's sandbox
  forcePullImage @30 :Bool;      # environment.force_pull_image: pull the image before each launch
  registryAuth :union {          # environment.registry_auth: the registry's credentials for the pull
    none @31 :Void;
    value @32 :RegistryLogin;
  }
  # A 1-rank command trial's first workload (its `run`), which the rank starts
  # at once, before its hello is answered; the trial sends the same request once
  # the hello came, which the rank then answers. none: the rank waits for the
  # trial's workloads (what agents and workers before 2026-11-30 always do: the
  # master sends the same request after the hello either way).
  firstWorkload :union {
    none @33 :Void;
    value @34 :WorkloadRequest;
  }
  # The trial takes the rank's last output lines in its exit report
  # (WorkerExit.output), so the agent may send them there rather than in a
  # LogLines message of their own. false from masters before 2026-11-30,
  # which ignore WorkerExit.output: their agents send every line in LogLines.
  exitCarriesOutput @35 :Bool;
}

# A container registry's credentials (the config's environment.registry_auth).
struct RegistryLogin {
  username @0 :Text;
  password @1 :Text;
  serveraddress @2 :Text;
}

# A host folder shown in a rank's sandbox (the config's bind_mounts entry).
struct BindMount {
  hostPath @0 :Text;
  containerPath @1 :Text;
  readOnly @2 :Bool;
}

struct WorkerExit {
  trialId @0 :UInt64;
  runId @1 :UInt32;
  rank @2 :UInt32;
  exitCode @3 :Int32;        # -1 when killed by a signal
  signal @4 :Int32;          # 0 when it exited
  message @5 :Text;          # e.g. why it could not be started
  output @6 :List(LogEntry); # its last output lines, after every LogLines before; only when its launch said exitCarriesOutput
}

struct LogLines {
  trialId @0 :UInt64;
  runId @1 :UInt32;
  lines @2 :List(LogEntry);
}

# --- rank worker <-> trial ---

struct RankHello {
  trialId @0 :UInt64;
  runId @1 :UInt32;
  rank @2 :UInt32;
  token @3 :Text;
  address @4 :RankAddress;   # where this rank accepts data-plane connections
  runsChains @5 :Bool;       # the rank runs a workload's `then` (WorkloadRequest); false from ranks before 2026-11-30
}

struct RankAddress {
  hostId @0 :Text;           # the machine's identity (host name + boot id)
  host @1 :Text;             # an address of that machine its peers can reach
  port @2 :UInt16;
}

# A rank of a running trial reporting in again to a restarted master. The
# workloads it finished last may not have been journaled by the old master
# (which sends a workload before its write of the previous answer lands):
# they are sent again with their results.
struct RankRejoin {
  trialId @0 :UInt64;
  runId @1 :UInt32;
  rank @2 :UInt32;
  token @3 :Text;
  last :union {              # the newest finished workload
    none @4 :Void;
    value @5 :FinishedWorkload;
  }
  earlier @6 :List(FinishedWorkload);  # those finished before `last`, oldest first (none from ranks before 2026-11-29)
  runsChains @7 :Bool;       # as in RankHello
}

# A workload a rank finished, with its result.
struct FinishedWorkload {
  request @0 :WorkloadRequest;
  result @1 :WorkloadResult;
}

# The trial's answer to every rank's hello once all have reported: the group
# the ranks build their communicator from.
struct RankGroup {
  groupId @0 :Text;          # unique per trial run
  secret @1 :Text;           # required on every data-plane connection
  ranks @2 :List(RankAddress);  # index = rank
  timeoutMs @3 :UInt64 = 30000;  # a collective without progress for this long fails
  shmLimitBytes @4 :UInt64;  # the trial's shared-memory budget
}

enum WorkloadKind {
  train @0;
  validate @1;
  checkpoint @2;
  run @3;                    # a command entrypoint: run it to completion
}

struct WorkloadRequest {
  kind @0 :WorkloadKind;
  startBatch @1 :UInt64;     # batches trained when the workload starts
  batches @2 :UInt64;        # train: how many batches
  path @3 :Text;             # checkpoint: the empty folder to save into; run: the folder to stage the command's checkpoints in
  metricPattern @4 :Text;    # run: the stdout metrics format; empty = Katib's default
  reportsInAnswer @5 :Bool;  # run: the rank's answer carries the reports it has not sent (WorkloadResult.reports)
  # and the trial journals them with the run's end in one write; false from masters
  # before 2026-11-29, whose trials expect every report batch acknowledged before the answer
  then @6 :List(WorkloadRequest);  # the plan's workloads that follow this one with no decision of the
  # searcher between them (a target's validation and checkpoint): the rank runs them right after it,
  # each while the one before succeeded, and answers all at once (WorkloadResult.then). Sent only to
  # ranks whose hello says runsChains; never with `then` of their own
}

struct WorkloadResult {
  metrics @0 :List(MetricEntry) $Records.map;  # averaged over the workload's batches
  batchesTrained @1 :UInt64;      # total after the workload
  errorMessage @2 :Text;          # non-empty: the trial code failed
  reports :union {                # run with reportsInAnswer: the command's last batch, never sent on its own
    none @3 :Void;
    value @4 :MetricReports;
  }
  then @5 :List(WorkloadResult);  # the results of the request's `then` that ran, in order: all of
  # them, or up to the first that failed
}

# What a command reported while it runs (rank -> trial, sent as it comes,
# before the answer to its `run` workload, the last ones in it): a line of the reporting API or
# the metrics a stdout line matched.
enum ReportKind {
  intermediate @0;           # report_intermediate_result: the searcher metric so far
  loss @1;                   # report_loss
  finalResult @2;            # report_final_result
  metrics @3;                # report_metrics, or a stdout line's matches
  checkpoint @4;             # volador.reporting.checkpoint() or the command's exit: a capture of its checkpoint folder
}

struct MetricReport {
  runId @0 :UInt32;
  rank @1 :UInt32;
  kind @2 :ReportKind = metrics;
  value @3 :Float64;         # intermediate, loss, finalResult
  metrics @4 :List(MetricEntry) $Records.map;  # metrics only
  step :union {              # the script's step, if it gave one
    none @5 :Void;
    value @6 :UInt64;
  }
  checkpoint @7 :Text;       # checkpoint: the capture's folder name in the run's staging folder
}

# A command rank's reports, many at once (rank -> trial): the rank sends a
# batch when it holds enough points or a few tens of ms after its first, and
# keeps it until the trial answers with a sequence number at least its own,
# which the trial does once the whole batch is journaled (in one write). A
# batch sent again (after the rank's link dropped) is journaled once. A run's
# last batch goes in the rank's answer instead when the trial asks for it
# (WorkloadRequest.reportsInAnswer); the trial takes it once, after every batch before it.
struct MetricReports {
  runId @0 :UInt32;
  rank @1 :UInt32;
  seq @2 :UInt64;            # 1, 2, ... within the run and rank
  reports @3 :List(MetricReport);  # in the order the command printed them
}

# A user of the cluster (master/users), as clients see it: never the password hash.
struct UserInfo {
  name @0 :Text;
  admin @1 :Bool;
  createdAtMs @2 :Int64;
  disabled @3 :Bool;
}

struct UserList {
  users @0 :List(UserInfo);  # by name
}

# A successful login: the token to present on every request (shown once,
# stored by the master only as a hash), when it expires, and who it is for.
struct LoginReply {
  token @0 :Text;
  expiresAtMs @1 :Int64;
  user @2 :UserInfo;
}

# --- agent <-> warm rank worker (runtime/process/message_channel.hpp framing) ---

# The agent hands an idle rank worker its next trial: the worker moves into
# the working folder the agent prepared (trial and timings files written)
# and reads its launch from `environment` as a new worker reads its own.
struct WorkerAssignment {
  directory @0 :Text;
  environment @1 :List(Text);  # NAME=VALUE: the variables a worker started for this trial would get
}

# A warm rank worker is done with a trial (after all of that trial's output)
# and waits for its next WorkerAssignment.
struct WorkerFinished {
  trialId @0 :UInt64;
  runId @1 :UInt32;
  rank @2 :UInt32;
}

# --- client -> master: the experiment lifecycle and the model registry ---

# An experiment made from an earlier one (`experiment fork`): its stored
# project and config, with the YAML of `changesYaml` merged over the config.
struct ForkExperimentRequest {
  experimentId @0 :UInt64;
  changesYaml @1 :Text;      # empty: the config unchanged
  changesFileName @2 :Text;  # as given, for error messages (FILE:LINE:COL)
}

# A user's description and labels of an experiment (`experiment set`).
struct ExperimentMetadataChange {
  experimentId @0 :UInt64;
  description :union {       # none: unchanged
    none @1 :Void;
    value @2 :Text;
  }
  labels @3 :List(Text);
  setLabels @4 :Bool;        # false: labels unchanged
}

# A checkpoint registered as a version of a model.
struct ModelVersion {
  modelName @0 :Text;
  version @1 :UInt32;
  checkpointUuid @2 :Text;
  experimentId @3 :UInt64;
  trialId @4 :UInt64;
  batches @5 :UInt64;        # batches trained when the checkpoint was taken
  hparams @6 :Text $Records.json;  # the trial's hyperparameters, a JSON object
  metrics @7 :List(MetricEntry) $Records.map;  # the checkpoint's validation metrics
  registeredBy @8 :Text;
  createdAtMs @9 :Int64;
  path @10 :Text;            # where the checkpoint lies on the shared file system
}

struct ModelSummary {
  name @0 :Text;
  description @1 :Text;
  owner @2 :Text;
  createdAtMs @3 :Int64;
  numVersions @4 :UInt32;
}

struct ModelList {
  models @0 :List(ModelSummary);  # by name
}

struct ModelDetail {
  summary @0 :ModelSummary $Records.flatten;
  versions @1 :List(ModelVersion);  # by version
}

# A project archive as stored (`experiment download-model-def`).
struct ModelDefinition {
  experimentId @0 :UInt64;
  archive @1 :Data;          # gzip tar, as packed at submission (storage/archives)
}
