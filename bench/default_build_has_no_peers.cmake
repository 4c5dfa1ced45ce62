# CTest script (cmake -P): configures the project as scripts/demo.sh and
# scripts/test.sh do, in a scratch folder, and fails if that build would
# compile a benchmark peer (mpi-allreduce-bench, gloo-allreduce-bench): the
# peers need OpenMPI's and Gloo's headers, and a half-installed OpenMPI broke
# the whole build. Run on a machine with the peers installed, where the old
# rule (build each peer when found) did define them.
# Arguments: -DSOURCE_DIR=... -DSCRATCH_DIR=...
file(REMOVE_RECURSE "${SCRATCH_DIR}")
execute_process(COMMAND "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${SCRATCH_DIR}" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
                RESULT_VARIABLE configured OUTPUT_QUIET ERROR_VARIABLE errors)
if(NOT configured EQUAL 0)
  message(FATAL_ERROR "configuring the project failed:\n${errors}")
endif()
file(READ "${SCRATCH_DIR}/build.ninja" rules)
file(REMOVE_RECURSE "${SCRATCH_DIR}")
foreach(peer mpi-allreduce-bench gloo-allreduce-bench)
  string(FIND "${rules}" "build bench/allreduce/${peer}:" found)
  if(NOT found EQUAL -1)
    message(FATAL_ERROR "the default build compiles ${peer}; peers are for bench/allreduce/run.sh only")
  endif()
endforeach()
