@0xc3a7e1f05d2b9a41;
# Journal records (storage/journal): values stored in RocksDB, one record per
# key. Every value is a complete record; keys only order them. Evolve by adding
# fields with new ordinals at the end; never renumber or change a field's type,
# so journals written by older masters still decode.

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("volador::journal_schema");

enum RunState {
  active @0;
  paused @1;
  completed @2;
  canceled @3;
  error @4;
}

struct Experiment {
  id @0 :UInt64;
  name @1 :Text;
  configYaml @2 :Text;
  configFileName @3 :Text;
  state @4 :RunState;
  experimentSeed @5 :UInt32;
  progress @6 :Float64;
  errorMessage @7 :Text;
  createdAtMs @8 :Int64;
  endedAtMs @9 :Int64;
}

struct Trial {
  id @0 :UInt64;
  experimentId @1 :UInt64;
  requestId @2 :UInt64;
  hparamsJson @3 :Text;
  seed @4 :UInt32;
  state @5 :RunState;
  batchesTrained @6 :UInt64;
  restarts @7 :UInt32;
  runId @8 :UInt32;
  errorMessage @9 :Text;
  createdAtMs @10 :Int64;
  endedAtMs @11 :Int64;
  runToken @12 :Text;          # the current run's secret, presented by its ranks
  runAgents @13 :List(Text);   # agents of the current run in rank order; empty: no run is live
}

enum MetricKind {
  training @0;
  validation @1;
}

struct Metric {
  name @0 :Text;
  value @1 :Float64;
}

struct MetricReport {
  trialId @0 :UInt64;
  kind @1 :MetricKind;
  batches @2 :UInt64;
  metrics @3 :List(Metric);
  reportedAtMs @4 :Int64;
}

struct LogLine {
  trialId @0 :UInt64;
  seq @1 :UInt64;
  timeMs @2 :Int64;
  stream @3 :Text;
  text @4 :Text;
}

# The packed model definition (gzip-compressed tar, see storage/archives).
struct Archive {
  bytes @0 :Data;
}

# The searcher's state (Searcher::save_state()) as JSON text.
struct SearcherState {
  json @0 :Text;
}

struct Counter {
  value @0 :UInt64;
}

enum CheckpointState {
  active @0;
  deleted @1;
}

struct Checkpoint {
  uuid @0 :Text;
  experimentId @1 :UInt64;
  trialId @2 :UInt64;
  batches @3 :UInt64;
  runId @4 :UInt32;
  validationMetrics @5 :List(Metric);
  state @6 :CheckpointState;
  totalBytes @7 :UInt64;
  createdAtMs @8 :Int64;
  scheduled @9 :Bool = true;   # the workload plan asked for it (false: taken where a pausing or closing trial stood)
}
