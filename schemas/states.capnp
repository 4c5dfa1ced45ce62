@0xe5b1c07d9a4f2638;
# Lifecycle states and kinds shared by the journal, the control plane and
# what users see; capnpc-records makes them C++ enums in namespace volador
# (schemas/states.records.hpp), named in upper case for users ("ACTIVE").

using Cxx = import "/capnp/c++.capnp";
using Records = import "records.capnp";
$Cxx.namespace("volador::states_schema");  # Cap'n Proto's own C++, kept out of the global namespace
$Records.namespace("volador");

# Where an experiment or a trial stands.
enum RunState {
  active @0;
  paused @1;
  completed @2;
  canceled @3;
  error @4;
}

# A checkpoint's state in storage.
enum CheckpointState {
  active @0;
  deleted @1;
}

# What a metric report measured.
enum MetricKind {
  training @0;
  validation @1;
}

# What an agent's slot is.
enum SlotType {
  cpu @0;
  gpu @1;
}
