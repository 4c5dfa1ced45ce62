#pragma once
// A slow disk for end-to-end tests (root, cgroup v1's blkio controller): a
// file-backed ext4 filesystem on a loop device, mounted at a folder, whose
// writes issued by the processes put in its own blkio cgroup (their synced
// writes; not what the kernel's flusher writes back later) reach the device
// at most `writes_per_s` times a second, so that each synced write of theirs
// takes about 1 / writes_per_s seconds. Measured on Debian 12 (cgroup v1
// hybrid): 2 writes/s made a 4 KiB synced write take 0.5 s. Everything is undone when it is
// destroyed, also after a failed check: processes still in the cgroup go
// back to the root group, the cgroup is removed, the filesystem unmounted and
// the loop device detached. Names are unique per disk (runs may overlap).

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <sys/types.h>

#include "runtime/core/error.hpp"

namespace volador::testing {

class SlowDisk {
 public:
  // A disk of `size_mib` MiB (a sparse image in `image_dir`; an agent whose
  // work folder is on it starts trials only with 1 GiB free), mounted at
  // `mount_point` (created; must not be in use). The error says why this
  // host cannot make one (not root, no blkio throttling, no loop device,
  // a step refused), for the test to say it is skipped and why.
  static Result<std::unique_ptr<SlowDisk>> make(const std::filesystem::path& image_dir,
                                                const std::filesystem::path& mount_point, std::uint32_t writes_per_s,
                                                std::uint32_t size_mib = 2048);
  ~SlowDisk();
  SlowDisk(const SlowDisk&) = delete;
  SlowDisk& operator=(const SlowDisk&) = delete;

  // Moves process `pid`, every thread of it, into the throttled cgroup (the test fails if refused).
  void slow_down(pid_t pid) const;
  // Seconds that one 4 KiB synced write to the disk takes from a process in the cgroup.
  [[nodiscard]] double synced_write_seconds() const;
  // Writes to the disk that processes in the cgroup have issued so far.
  [[nodiscard]] std::uint64_t writes_issued() const;

 private:
  SlowDisk() = default;
  // The steps of make(), in order; each leaves what undoes it (run at destruction, last step first).
  Status make_image(std::uint32_t size_mib);
  Status attach_loop_device();
  Status format_and_mount();
  Status make_throttled_group(std::uint32_t writes_per_s);

  std::filesystem::path image_;
  std::filesystem::path mount_point_;
  std::string device_;           // /dev/loopN
  std::string major_minor_;      // "7:0"
  std::filesystem::path group_;  // /sys/fs/cgroup/blkio/volador-slow-disk-...
  std::vector<std::function<void()>> undo_;
};

}  // namespace volador::testing
