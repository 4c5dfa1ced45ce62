// mpi-allreduce-bench IMPL MIN_BYTES MAX_BYTES: MPI_Allreduce (in place,
// float sum) timed exactly like volador-allreduce-bench; run it under
// mpirun (run.sh picks the BTL: self,vader or self,tcp).

#include <mpi.h>

#include <algorithm>
#include <string>
#include <vector>

#include "bench/allreduce/bench_common.hpp"

int main(int argc, char** argv) {
  using namespace volador::bench;
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const std::string impl = argc > 1 ? argv[1] : "openmpi";
  const auto steps = plan(parse_size(argc > 2 ? argv[2] : "8"), parse_size(argc > 3 ? argv[3] : "256M"));
  std::vector<float> buffer(steps.empty() ? 0 : steps.back().bytes / sizeof(float), 0.0f);
  if (rank == 0) print_table_header(impl, ranks);
  for (const Step& step : steps) {
    const int count = static_cast<int>(step.bytes / sizeof(float));
    for (int i = 0; i < step.warmup; ++i) MPI_Allreduce(MPI_IN_PLACE, buffer.data(), count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    for (int i = 0; i < step.iters; ++i) MPI_Allreduce(MPI_IN_PLACE, buffer.data(), count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    const double mine = (MPI_Wtime() - start) / step.iters;
    double slowest = 0.0;
    MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) report(impl, ranks, step, slowest);
  }
  MPI_Finalize();
  return 0;
}
