#pragma once
// Errors are values: every fallible function returns Result<T>, which holds
// either the value or an Error saying what went wrong and where.

#include <expected>
#include <string>
#include <utility>

namespace volador {

enum class ErrorCode {
  invalid_argument,  // the caller's input is wrong (config, request, id)
  not_found,         // a named thing (experiment, trial, file) does not exist
  already_exists,    // a thing that must be new exists
  io,                // the operating system refused (disk full, permission)
  corruption,        // stored data failed to decode or verify
  unavailable,       // a peer (master, agent) cannot be reached
  resource_exhausted,// a limit was hit (archive size, slots)
  internal,          // a bug: an invariant did not hold
  unauthenticated,   // no valid credentials (wrong password, missing/expired token); says no more
  permission_denied, // the caller is known but may not do this (not an admin, not the owner)
};

struct Error {
  ErrorCode code = ErrorCode::internal;
  std::string message;

  static Error invalid_argument(std::string m) { return {ErrorCode::invalid_argument, std::move(m)}; }
  static Error not_found(std::string m) { return {ErrorCode::not_found, std::move(m)}; }
  static Error already_exists(std::string m) { return {ErrorCode::already_exists, std::move(m)}; }
  static Error io(std::string m) { return {ErrorCode::io, std::move(m)}; }
  static Error corruption(std::string m) { return {ErrorCode::corruption, std::move(m)}; }
  static Error unavailable(std::string m) { return {ErrorCode::unavailable, std::move(m)}; }
  static Error resource_exhausted(std::string m) { return {ErrorCode::resource_exhausted, std::move(m)}; }
  static Error internal(std::string m) { return {ErrorCode::internal, std::move(m)}; }
  static Error unauthenticated(std::string m) { return {ErrorCode::unauthenticated, std::move(m)}; }
  static Error permission_denied(std::string m) { return {ErrorCode::permission_denied, std::move(m)}; }
};

template <class T>
using Result = std::expected<T, Error>;

// Status is Result<void>: success or an Error.
using Status = Result<void>;

inline std::unexpected<Error> fail(Error e) { return std::unexpected(std::move(e)); }

}  // namespace volador
