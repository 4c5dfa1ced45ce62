#pragma once
// An experiment submitted from a browser: a multipart form with the config
// (part `config`, its file name used in errors) and the project, either as
// one archive (part `project`: a gzip tar or a zip) or as its files (parts
// `files`, each named by its path relative to the project folder). The
// project is repacked as `volador experiment create` packs a folder, with
// its .voladorignore and size limit.

#include <filesystem>

#include <httplib.h>

#include "runtime/core/error.hpp"
#include "runtime/wire/messages.hpp"

namespace volador::http {

// The create request the form describes; invalid_argument naming the part
// or path at fault, resource_exhausted for a project over the limit.
// Scratch files go under `data_dir`/uploads and are removed before it returns.
Result<wire::CreateExperimentRequest> read_experiment_upload(const httplib::Request& request,
                                                             const std::filesystem::path& data_dir);

}  // namespace volador::http
