#include "tests/integration/slow_disk.hpp"

#include <catch2/catch.hpp>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <thread>

#include <fcntl.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "tests/integration/cluster_fixture.hpp"

namespace volador::testing {
namespace fs = std::filesystem;

namespace {

const fs::path kBlkio = "/sys/fs/cgroup/blkio";

// The program `name` in the system's folders, or empty.
fs::path system_program(const std::string& name) {
  for (const char* folder : {"/usr/sbin", "/sbin", "/usr/bin", "/bin"})
    if (fs::exists(fs::path(folder) / name)) return fs::path(folder) / name;
  return {};
}

// Writes `text` to the kernel's control file `file` (a cgroup's) in one write.
Status write_control(const fs::path& file, const std::string& text) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return fail(Error::io("cannot open " + file.string() + ": " + std::strerror(errno)));
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const int write_errno = errno;
  ::close(fd);
  if (!written) return fail(Error::io("writing '" + text + "' to " + file.string() + ": " + std::strerror(write_errno)));
  return {};
}

// Runs `argv`; its stdout, or an error naming the command, its exit status and stderr.
Result<std::string> run_step(const std::vector<std::string>& argv) {
  const auto result = run_command(argv, 60);
  if (result.exit_code == 0) return result.out;
  std::string command;
  for (const auto& word : argv) command += (command.empty() ? "" : " ") + word;
  return fail(Error::io(command + " exited with " + std::to_string(result.exit_code) + ": " + result.err));
}

// Why this host has no slow disk to offer, or nullopt.
std::optional<std::string> missing_prerequisite() {
  if (::geteuid() != 0) return "a slow disk needs root (a loop device, a mount, a blkio cgroup)";
  if (!fs::exists(kBlkio / "blkio.throttle.write_iops_device"))
    return "no cgroup v1 blkio controller with write throttling at " + kBlkio.string();
  if (!fs::exists("/dev/loop-control")) return "no loop devices (/dev/loop-control is missing)";
  for (const char* program : {"losetup", "mkfs.ext4"})
    if (system_program(program).empty()) return std::string(program) + " is not installed";
  return std::nullopt;
}

// A cgroup name of its own: the test's pid and a random number.
std::string unique_group_name() {
  std::random_device device;
  return "volador-slow-disk-" + std::to_string(::getpid()) + "-" + std::to_string(device());
}

}  // namespace

Result<std::unique_ptr<SlowDisk>> SlowDisk::make(const fs::path& image_dir, const fs::path& mount_point,
                                                 std::uint32_t writes_per_s, std::uint32_t size_mib) {
  if (auto missing = missing_prerequisite()) return fail(Error::unavailable(*missing));
  std::unique_ptr<SlowDisk> disk(new SlowDisk());
  disk->image_ = image_dir / "slow-disk.img";
  disk->mount_point_ = mount_point;
  disk->group_ = kBlkio / unique_group_name();
  if (auto made = disk->make_image(size_mib); !made) return fail(made.error());
  if (auto attached = disk->attach_loop_device(); !attached) return fail(attached.error());
  if (auto mounted = disk->format_and_mount(); !mounted) return fail(mounted.error());
  if (auto throttled = disk->make_throttled_group(writes_per_s); !throttled) return fail(throttled.error());
  return disk;
}

Status SlowDisk::make_image(std::uint32_t size_mib) {
  undo_.push_back([image = image_] { fs::remove(image); });
  fs::create_directories(image_.parent_path());
  std::ofstream(image_).close();
  std::error_code error;
  fs::resize_file(image_, std::uintmax_t{size_mib} << 20, error);  // sparse
  if (error) return fail(Error::io("cannot size " + image_.string() + ": " + error.message()));
  return {};
}

Status SlowDisk::attach_loop_device() {
  auto device = run_step({system_program("losetup").string(), "--find", "--show", image_.string()});
  if (!device) return fail(device.error());
  device_ = device->substr(0, device->find('\n'));
  undo_.push_back([device = device_] {
    // As `losetup -d`; a device still in use (a lazy unmount) is detached once its last user lets go.
    const int fd = ::open(device.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    ::ioctl(fd, LOOP_CLR_FD, 0);
    ::close(fd);
  });
  struct stat info {};
  if (::stat(device_.c_str(), &info) != 0) return fail(Error::io("cannot stat " + device_ + ": " + std::strerror(errno)));
  major_minor_ = std::to_string(major(info.st_rdev)) + ":" + std::to_string(minor(info.st_rdev));
  return {};
}

Status SlowDisk::format_and_mount() {
  if (auto formatted = run_step({system_program("mkfs.ext4").string(), "-q", "-F", device_}); !formatted)
    return fail(formatted.error());
  fs::create_directories(mount_point_);
  if (::mount(device_.c_str(), mount_point_.c_str(), "ext4", 0, nullptr) != 0)
    return fail(Error::io("cannot mount " + device_ + " at " + mount_point_.string() + ": " + std::strerror(errno)));
  undo_.push_back([mount_point = mount_point_] {
    if (::umount2(mount_point.c_str(), 0) != 0) ::umount2(mount_point.c_str(), MNT_DETACH);  // still in use
  });
  return {};
}

Status SlowDisk::make_throttled_group(std::uint32_t writes_per_s) {
  std::error_code error;
  if (!fs::create_directory(group_, error))
    return fail(Error::io("cannot make the cgroup " + group_.string() + ": " + error.message()));
  undo_.push_back([group = group_] {
    // Whatever is left in it (a process that outlived its test) goes back to the root group; then it is removed.
    for (int attempt = 0; attempt < 50; ++attempt) {
      std::ifstream procs(group / "cgroup.procs");
      for (std::string pid; procs >> pid;) (void)write_control(kBlkio / "cgroup.procs", pid);
      if (::rmdir(group.c_str()) == 0 || errno == ENOENT) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  });
  return write_control(group_ / "blkio.throttle.write_iops_device", major_minor_ + " " + std::to_string(writes_per_s));
}

SlowDisk::~SlowDisk() {
  for (auto undo = undo_.rbegin(); undo != undo_.rend(); ++undo) (*undo)();
}

void SlowDisk::slow_down(pid_t pid) const {
  const auto moved = write_control(group_ / "cgroup.procs", std::to_string(pid));
  INFO((moved ? std::string() : moved.error().message));
  REQUIRE(moved.has_value());
}

double SlowDisk::synced_write_seconds() const {
  constexpr int kWrites = 4;
  const auto probe = mount_point_ / ".synced-write-probe";
  const auto started = std::chrono::steady_clock::now();
  const auto result = run_command({"/bin/sh", "-c",
                                   "echo $$ > " + (group_ / "cgroup.procs").string() +
                                       " && exec dd if=/dev/zero of=" + probe.string() + " bs=4k count=" +
                                       std::to_string(kWrites) + " oflag=dsync"});
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - started;
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  fs::remove(probe);
  return took.count() / kWrites;
}

std::uint64_t SlowDisk::writes_issued() const {
  std::ifstream serviced(group_ / "blkio.throttle.io_serviced");
  std::uint64_t writes = 0;
  for (std::string device, operation; serviced >> device >> operation;) {
    std::uint64_t count = 0;
    if (device == "Total") continue;  // the last line: "Total N"; its N was read as the operation
    serviced >> count;
    if (device == major_minor_ && operation == "Write") writes = count;
  }
  return writes;
}

}  // namespace volador::testing
