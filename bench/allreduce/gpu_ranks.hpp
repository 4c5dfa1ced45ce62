#pragma once
// Placing forked ranks on CUDA devices, for the NCCL rows (ours and
// nccl-direct's alike): one device per rank, rank r on device r % devices.
// CUDA must not be initialised in a process that forks afterwards, so the
// parent asks a forked child.

namespace volador::bench {

// True when this machine has a CUDA device for each of `ranks` ranks (NCCL
// refuses two ranks on one device); otherwise says why on stderr ("no CUDA
// device: ..."). Asks in a forked child: the caller stays free of CUDA.
[[nodiscard]] bool gpus_fit(int ranks);

// The device rank `rank` uses (rank % devices); -1, said on stderr, when
// CUDA finds none. Called in the rank's own process.
[[nodiscard]] int rank_device(int rank);

}  // namespace volador::bench
