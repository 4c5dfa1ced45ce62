#include "http/experiment_upload.hpp"

#include <fstream>
#include <random>

#include <fmt/format.h>

#include "storage/archives/archive.hpp"

namespace volador::http {
namespace {

namespace fs = std::filesystem;

// A folder removed with everything in it when this goes out of scope.
class ScratchDir {
 public:
  explicit ScratchDir(const fs::path& parent) {
    std::random_device random;
    path_ = parent / fmt::format("upload-{:08x}{:08x}", random(), random());
    fs::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  [[nodiscard]] const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// `name` as a path inside the project: relative, without "..", ".", or empty parts.
Result<fs::path> project_path(const std::string& name) {
  const fs::path path(name);
  bool valid = !name.empty() && path.is_relative() && name.find('\\') == std::string::npos;
  for (const auto& part : path) valid = valid && !part.empty() && part != ".." && part != ".";
  if (!valid)
    return fail(Error::invalid_argument("part 'files': '" + name +
                                        "' is not a path inside the project folder (relative, without '..')"));
  return path;
}

Status write_files(const httplib::Request& request, const fs::path& dir) {
  const auto [begin, end] = request.files.equal_range("files");
  for (auto it = begin; it != end; ++it) {
    auto path = project_path(it->second.filename);
    if (!path) return fail(path.error());
    fs::create_directories((dir / *path).parent_path());
    std::ofstream out(dir / *path, std::ios::binary);
    out.write(it->second.content.data(), static_cast<std::streamsize>(it->second.content.size()));
    if (!out) return fail(Error::io("cannot write the uploaded file '" + it->second.filename + "'"));
  }
  return {};
}

// Unpacks or writes the project's parts into `dir`.
Status receive_project(const httplib::Request& request, const fs::path& dir) {
  const bool archive = request.has_file("project"), files = request.has_file("files");
  if (archive == files)
    return fail(Error::invalid_argument(
        "the form needs the project either as one archive (part 'project': .tar.gz or .zip) or as its files (parts "
        "'files'), not both and not neither"));
  if (files) return write_files(request, dir);
  if (request.files.count("project") != 1)
    return fail(Error::invalid_argument("part 'project' is given more than once"));
  auto unpacked = archives::unpack_archive(request.get_file_value("project").content, dir);
  if (!unpacked) return fail(Error{unpacked.error().code, "part 'project': " + unpacked.error().message});
  return {};
}

}  // namespace

Result<wire::CreateExperimentRequest> read_experiment_upload(const httplib::Request& request, const fs::path& data_dir) {
  if (!request.is_multipart_form_data())
    return fail(Error::invalid_argument("send the experiment as multipart/form-data with parts 'config' and 'project' or 'files'"));
  if (request.files.count("config") != 1)
    return fail(Error::invalid_argument("the form needs exactly one part 'config' (the distributed.yaml)"));
  const auto config = request.get_file_value("config");
  std::error_code error;
  fs::create_directories(data_dir / "uploads", error);
  if (error) return fail(Error::io("cannot make the upload folder: " + error.message()));
  ScratchDir scratch(data_dir / "uploads");
  if (auto received = receive_project(request, scratch.path()); !received) return fail(received.error());
  auto packed = archives::pack_directory(scratch.path());
  if (!packed) return fail(packed.error());
  return wire::CreateExperimentRequest{.config_yaml = config.content,
                                       .config_file_name = config.filename.empty() ? "distributed.yaml" : config.filename,
                                       .archive = std::move(*packed)};
}

}  // namespace volador::http
