// _volador_native: NativeSession bound to Python. `join()` returns a Session
// that is both the worker's workload source for volador.worker.serve and the
// trial's communicator (volador._comm.Communicator). Calls that block (join,
// next_workload, the collectives, a handle's wait) release the GIL; errors
// raise RuntimeError.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <stdexcept>

#include "python/native/native_session.hpp"

namespace py = pybind11;
using volador::python::CollectiveTicket;
using volador::python::NativeSession;

namespace {

[[noreturn]] void raise(const volador::Error& error) { throw std::runtime_error(error.message); }

void check(const volador::Status& status) {
  if (!status) raise(status.error());
}

py::object to_python(const nlohmann::json& value) {
  return py::module_::import("json").attr("loads")(value.dump());
}

const char* kind_name(volador::wire::WorkloadKind kind) {
  switch (kind) {
    case volador::wire::WorkloadKind::train: return "train";
    case volador::wire::WorkloadKind::validate: return "validate";
    case volador::wire::WorkloadKind::checkpoint: return "checkpoint";
    case volador::wire::WorkloadKind::run: return "run";  // a command trial's; a Python trial answers it with an error
  }
  return "unknown";
}

py::object next_workload(NativeSession& session) {
  volador::Result<std::optional<volador::wire::WorkloadRequest>> request;
  {
    py::gil_scoped_release release;
    request = session.next_workload();
  }
  if (!request) raise(request.error());
  if (!*request) return py::none();
  const auto& w = **request;
  py::dict out;
  out["kind"] = kind_name(w.kind);
  out["start_batch"] = w.start_batch;
  out["batches"] = w.batches;
  out["path"] = w.path;
  return out;
}

void complete(NativeSession& session, const py::dict& result) {
  volador::wire::WorkloadResult out;
  if (result.contains("metrics"))
    for (auto [name, value] : result["metrics"].cast<py::dict>())
      out.metrics[py::str(name).cast<std::string>()] = value.cast<double>();
  if (result.contains("batches_trained")) out.batches_trained = result["batches_trained"].cast<std::uint64_t>();
  if (result.contains("error") && !result["error"].is_none()) out.error_message = result["error"].cast<std::string>();
  py::gil_scoped_release release;
  check(session.complete(out));
}

void require_writable_contiguous(const py::array& array, const char* what) {
  if (!(array.flags() & py::array::c_style)) throw py::value_error(std::string(what) + " needs a C-contiguous array");
  if (!array.writeable()) throw py::value_error(std::string(what) + " needs a writable array");
}

// An allreduce_async_ in flight: keeps its array alive until it has run.
class CollectiveHandle {
 public:
  CollectiveHandle(std::shared_ptr<CollectiveTicket> ticket, py::object array)
      : ticket_(std::move(ticket)), array_(std::move(array)) {}
  CollectiveHandle(const CollectiveHandle&) = delete;
  CollectiveHandle& operator=(const CollectiveHandle&) = delete;
  CollectiveHandle(CollectiveHandle&&) = default;
  // Dropped unwaited: the array must outlive the collective writing into it.
  ~CollectiveHandle() {
    if (ticket_ && !ticket_->done()) {
      py::gil_scoped_release release;
      (void)ticket_->wait();
    }
  }

  void wait() {
    volador::Status status;
    {
      py::gil_scoped_release release;
      status = ticket_->wait();
    }
    array_ = py::none();
    check(status);
  }
  [[nodiscard]] bool done() const { return ticket_->done(); }

 private:
  std::shared_ptr<CollectiveTicket> ticket_;
  py::object array_;
};

volador::collective::ReduceOp reduce_op(const std::string& op) {
  if (op != "sum" && op != "avg") throw py::value_error("allreduce_ op must be 'sum' or 'avg', not '" + op + "'");
  return op == "sum" ? volador::collective::ReduceOp::sum : volador::collective::ReduceOp::avg;
}

std::pair<std::span<float>, volador::collective::ReduceOp> allreduce_args(const py::array& array,
                                                                          const std::string& op) {
  const auto reduce = reduce_op(op);
  if (!py::isinstance<py::array_t<float>>(array))
    throw py::type_error("allreduce_ needs a float32 array, not " + py::str(array.dtype()).cast<std::string>());
  require_writable_contiguous(array, "allreduce_");
  std::span<float> data(static_cast<float*>(const_cast<py::array&>(array).mutable_data()),
                        static_cast<std::size_t>(array.size()));
  return {data, reduce};
}

void allreduce(NativeSession& session, py::array array, const std::string& op) {
  auto [data, reduce] = allreduce_args(array, op);
  py::gil_scoped_release release;
  check(session.allreduce(data, reduce));
}

CollectiveHandle allreduce_async(NativeSession& session, py::array array, const std::string& op) {
  auto [data, reduce] = allreduce_args(array, op);
  return CollectiveHandle(session.allreduce_async(data, reduce), array);
}

// None when the trial's GPU collectives formed, else why they did not (the same on every rank).
py::object use_device_memory(NativeSession& session, bool wanted) {
  volador::Status formed;
  {
    py::gil_scoped_release release;
    formed = session.use_device_memory(wanted);
  }
  if (formed) return py::none();
  return py::str(formed.error().message);
}

CollectiveHandle allreduce_device_async(NativeSession& session, std::uintptr_t pointer, std::size_t count,
                                        const std::string& op, std::uintptr_t ready_event) {
  return CollectiveHandle(session.allreduce_device_async(pointer, count, reduce_op(op), ready_event), py::none());
}

void broadcast(NativeSession& session, py::array array, int root) {
  require_writable_contiguous(array, "broadcast_");
  std::span<std::byte> data(static_cast<std::byte*>(array.mutable_data()), static_cast<std::size_t>(array.nbytes()));
  py::gil_scoped_release release;
  check(session.broadcast(data, root));
}

}  // namespace

PYBIND11_MODULE(_volador_native, m) {
  m.doc() = "A Python rank worker's link to its Volador trial (join, workloads, collectives).";

  py::class_<CollectiveHandle>(m, "CollectiveHandle", "An asynchronous collective in flight (see allreduce_async_).")
      .def("wait", &CollectiveHandle::wait,
           "Returns once the collective has run (raises RuntimeError if it failed); may be called again.")
      .def("done", &CollectiveHandle::done, "Whether the collective has run.");

  py::class_<NativeSession>(m, "Session",
                            "This rank's membership in its trial: workloads to run and the trial's communicator.")
      .def_property_readonly("rank", &NativeSession::rank)
      .def_property_readonly("size", &NativeSession::size)
      .def_property_readonly("local_rank", [](const NativeSession& s) { return s.launch().local_rank; })
      .def_property_readonly("local_size", [](const NativeSession& s) { return s.launch().local_size; })
      .def_property_readonly("trial_id", [](const NativeSession& s) { return s.launch().hello.trial_id; })
      .def_property_readonly("experiment_id", [](const NativeSession& s) { return s.launch().experiment_id; })
      .def_property_readonly("entrypoint", [](const NativeSession& s) { return s.launch().entrypoint; })
      .def_property_readonly("hparams", [](const NativeSession& s) { return to_python(s.launch().hparams); })
      .def_property_readonly("data", [](const NativeSession& s) { return to_python(s.launch().data); })
      .def_property_readonly("seed", [](const NativeSession& s) { return s.launch().seed; })
      .def_property_readonly("global_batch_size", [](const NativeSession& s) { return s.launch().global_batch_size; })
      .def_property_readonly("restore_path", [](const NativeSession& s) { return s.launch().restore_path; })
      .def("next_workload", &next_workload,
           "The next workload as {kind, start_batch, batches, path}, or None when the trial is done with this rank.")
      .def("complete", &complete, py::arg("result"),
           "Answers the last workload with {metrics: {name: float}, batches_trained: int, error: str}.")
      .def("allreduce_", &allreduce, py::arg("array"), py::arg("op"),
           "Reduces a C-contiguous float32 array in place over all ranks; op is 'sum' or 'avg'.")
      .def("allreduce_async_", &allreduce_async, py::arg("array"), py::arg("op"),
           "Queues allreduce_(array, op) and returns a CollectiveHandle at once; the array must not be touched "
           "until handle.wait() returns. Collectives run one at a time in the order they were issued.")
      .def("use_device_memory", &use_device_memory, py::arg("wanted"),
           "Forms the trial's GPU collectives (NCCL), a call every rank makes at the same point; wanted: this "
           "rank's gradients are in GPU memory. Returns None, or why the trial keeps to host memory.")
      .def("allreduce_device_async_", &allreduce_device_async, py::arg("pointer"), py::arg("count"), py::arg("op"),
           py::arg("ready_event"),
           "Queues an in-place allreduce of count float32 at GPU address pointer, started on the GPU once the "
           "cudaEvent_t ready_event (0: none) has completed; returns a CollectiveHandle. The memory must stay "
           "allocated until handle.wait() returns. Needs use_device_memory(True) to have returned None.")
      .def("broadcast_", &broadcast, py::arg("array"), py::arg("root"),
           "Overwrites a C-contiguous array (any dtype) in place with rank root's bytes.")
      .def("barrier", [](NativeSession& s) {
             py::gil_scoped_release release;
             check(s.barrier());
           }, "Returns once every rank has called barrier().")
      .def("close", [](NativeSession& s) {
             py::gil_scoped_release release;
             s.close();
           }, "Leaves the trial (closes the data plane and the control connection).");

  m.def("join", [] {
    volador::Result<NativeSession> session = volador::fail(volador::Error::internal("not joined"));
    {
      py::gil_scoped_release release;
      session = NativeSession::join();
    }
    if (!session) raise(session.error());
    return std::move(*session);
  }, "Reads this worker's launch from the environment the agent set and joins the trial; returns a Session.");
}
