#include "runtime/collective/shm_segment.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <thread>

#include "runtime/collective/socket.hpp"

namespace volador::collective {

namespace {

constexpr std::chrono::milliseconds kPollStep{1};
constexpr std::size_t kMaxIdBytes = 200;

template <class T>
std::atomic_ref<T> atomic(T& value) {
  return std::atomic_ref<T>(value);
}

bool valid_id(std::string_view id) {
  if (id.empty() || id.size() > kMaxIdBytes) return false;
  for (char c : id) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

// A segment's name lives in POSIX shared memory (/dev/shm), or in the folder
// VOLADOR_SHM_DIR names: a sandboxed rank's /dev/shm is its own, so its
// agent shows the ranks of one trial a folder they share (actors/worker_sandbox.hpp).
int open_segment(const std::string& name, int flags, mode_t mode) {
  const char* folder = std::getenv("VOLADOR_SHM_DIR");
  if (folder == nullptr || *folder == '\0') return ::shm_open(name.c_str(), flags, mode);
  return ::open((std::string(folder) + name).c_str(), flags, mode);
}

int unlink_segment(const std::string& name) {
  const char* folder = std::getenv("VOLADOR_SHM_DIR");
  if (folder == nullptr || *folder == '\0') return ::shm_unlink(name.c_str());
  return ::unlink((std::string(folder) + name).c_str());
}

Result<UniqueFd> create(const std::string& name, std::size_t bytes) {
  UniqueFd fd(open_segment(name, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600));
  if (!fd) {
    if (errno == EEXIST) return fail(Error::already_exists("shared-memory segment " + name + " exists already"));
    return fail(Error::io("shm_open " + name + ": " + errno_text(errno)));
  }
  if (::ftruncate(fd.get(), static_cast<off_t>(bytes)) != 0) {
    const int err = errno;
    unlink_segment(name);
    return fail(Error::io("sizing " + name + " to " + std::to_string(bytes) + " bytes: " + errno_text(err)));
  }
  return fd;
}

// Opens the segment rank 0 creates, once it has its full size.
Result<UniqueFd> open_created(const std::string& name, std::size_t bytes, Deadline& deadline) {
  for (;;) {
    UniqueFd fd(open_segment(name, O_RDWR | O_CLOEXEC, 0));
    if (fd) {
      struct stat st {};
      if (::fstat(fd.get(), &st) != 0) return fail(Error::io("fstat " + name + ": " + errno_text(errno)));
      if (static_cast<std::size_t>(st.st_size) == bytes) return fd;
      if (st.st_size != 0) {
        return fail(Error::corruption(name + " has " + std::to_string(st.st_size) + " bytes, expected " +
                                      std::to_string(bytes) + ": do all ranks pass the same size and options?"));
      }
    } else if (errno != ENOENT) {
      return fail(Error::io("shm_open " + name + ": " + errno_text(errno)));
    }
    if (deadline.expired()) return fail(Error::unavailable("rank 0 did not create " + name + " in time"));
    std::this_thread::sleep_for(kPollStep);
  }
}

Result<std::byte*> map(int fd, std::size_t bytes) {
  void* base = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
  if (base == MAP_FAILED) return fail(Error::io("mmap of " + std::to_string(bytes) + " bytes: " + errno_text(errno)));
  return static_cast<std::byte*>(base);
}

void initialise(ShmHeader& h, const ShmGeometry& g) {
  h.magic = kShmMagic;
  h.ranks = static_cast<std::uint32_t>(g.ranks);
  h.depth = static_cast<std::uint32_t>(g.depth);
  h.slot_bytes = g.slot_bytes;
  atomic(h.ready).store(1, std::memory_order_release);
}

// Waits for `done` to hold; fails when a rank gave up or at the deadline.
template <class Done>
Status await(ShmHeader& h, Deadline& deadline, Done done, const std::string& what) {
  for (;;) {
    if (done()) return {};
    if (const auto aborted = atomic(h.aborted).load(); aborted != 0) {
      return fail(Error::unavailable("rank " + std::to_string(aborted - 1) + " gave up while the group formed"));
    }
    if (deadline.expired()) return fail(Error::unavailable(what + " within " + std::to_string(deadline.budget().count()) + " ms"));
    std::this_thread::sleep_for(kPollStep);
  }
}

Status check_layout(ShmHeader& h, const ShmGeometry& g, Deadline& deadline) {
  auto ready = [&] { return atomic(h.ready).load(std::memory_order_acquire) == 1; };
  if (auto ok = await(h, deadline, ready, "rank 0 did not initialise the segment"); !ok) return ok;
  if (h.magic != kShmMagic || h.ranks != static_cast<std::uint32_t>(g.ranks) ||
      h.depth != static_cast<std::uint32_t>(g.depth) || h.slot_bytes != g.slot_bytes) {
    return fail(Error::corruption("the shared-memory segment has another layout: do all ranks pass the same options?"));
  }
  return {};
}

}  // namespace

std::string shm_name(std::string_view group_id) { return "/volador-" + std::string(group_id); }

Status remove_shm_segment(std::string_view group_id) {
  if (!valid_id(group_id)) return fail(Error::invalid_argument("bad group id '" + std::string(group_id) + "'"));
  if (unlink_segment(shm_name(group_id)) != 0 && errno != ENOENT) {
    return fail(Error::io("shm_unlink " + shm_name(group_id) + ": " + errno_text(errno)));
  }
  return {};
}

Result<ShmSegment> ShmSegment::join(std::string_view group_id, int rank, const ShmGeometry& geometry,
                                    Deadline& deadline) {
  if (!valid_id(group_id)) {
    return fail(Error::invalid_argument("group id '" + std::string(group_id) + "' must be 1-200 of [A-Za-z0-9._-]"));
  }
  const std::string name = shm_name(group_id);
  const std::size_t bytes = geometry.total_bytes();
  auto fd = rank == 0 ? create(name, bytes) : open_created(name, bytes, deadline);
  if (!fd) return fail(fd.error());
  auto base = map(fd->get(), bytes);
  if (!base) {
    unlink_segment(name);
    return fail(base.error());
  }
  ShmSegment segment(*base, geometry);
  ShmHeader& h = segment.header();
  if (rank == 0) {
    initialise(h, geometry);
  } else if (auto ok = check_layout(h, geometry, deadline); !ok) {
    return fail(ok.error());
  }
  atomic(segment.line(rank).pid).store(::getpid());
  if (atomic(h.attached).fetch_add(1) + 1 == static_cast<std::uint32_t>(geometry.ranks)) unlink_segment(name);
  auto all_attached = [&] { return atomic(h.attached).load() == static_cast<std::uint32_t>(geometry.ranks); };
  if (auto ok = await(h, deadline, all_attached, "not every rank attached to " + name); !ok) {
    unlink_segment(name);
    atomic(h.aborted).store(static_cast<std::uint32_t>(rank) + 1);
    return fail({ok.error().code, ok.error().message + " (missing: ranks " + segment.missing_ranks() + ")"});
  }
  return segment;
}

ShmSegment::ShmSegment(ShmSegment&& other) noexcept : base_(other.base_), geometry_(other.geometry_) {
  other.base_ = nullptr;
}

ShmSegment& ShmSegment::operator=(ShmSegment&& other) noexcept {
  if (this != &other) {
    if (base_ != nullptr) ::munmap(base_, geometry_.total_bytes());
    base_ = other.base_;
    geometry_ = other.geometry_;
    other.base_ = nullptr;
  }
  return *this;
}

ShmSegment::~ShmSegment() {
  if (base_ != nullptr) ::munmap(base_, geometry_.total_bytes());
}

std::string ShmSegment::missing_ranks() const {
  std::string out;
  for (int r = 0; r < geometry_.ranks; ++r) {
    if (atomic(line(r).pid).load() == 0) out += (out.empty() ? "" : ", ") + std::to_string(r);
  }
  return out;
}

ShmRankLine& ShmSegment::line(int rank) const {
  return reinterpret_cast<ShmRankLine*>(base_ + sizeof(ShmHeader))[rank];
}

}  // namespace volador::collective
