// Status: the outcome of a fallible operation, an error code plus a message.
// Codes are few and chosen so that retry policy can switch on them. Messages name the file, table,
// topic-partition or offset involved and never contain a secret. Status is a cheap value type
// (one pointer); OK carries no allocation. Thread-compatible.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace weir {

enum class StatusCode : int {
  kOk = 0,
  kInvalidArgument,
  kNotFound,
  kCorruption,
  kIOError,
  kConflict,        // a Delta version (or another put-if-absent target) is already taken
  kUnavailable,     // a retryable broker or storage fault
  kDataLoss,
  kCancelled,
  kNotImplemented,  // valid input that weir does not support yet; never used for bad input
  kAlreadyExists,
  kInternal,
};

std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message);

  static Status OK() { return Status(); }
  static Status InvalidArgument(std::string msg) { return {StatusCode::kInvalidArgument, std::move(msg)}; }
  static Status NotFound(std::string msg) { return {StatusCode::kNotFound, std::move(msg)}; }
  static Status Corruption(std::string msg) { return {StatusCode::kCorruption, std::move(msg)}; }
  static Status IOError(std::string msg) { return {StatusCode::kIOError, std::move(msg)}; }
  static Status Conflict(std::string msg) { return {StatusCode::kConflict, std::move(msg)}; }
  static Status Unavailable(std::string msg) { return {StatusCode::kUnavailable, std::move(msg)}; }
  static Status DataLoss(std::string msg) { return {StatusCode::kDataLoss, std::move(msg)}; }
  static Status Cancelled(std::string msg) { return {StatusCode::kCancelled, std::move(msg)}; }
  static Status NotImplemented(std::string msg) { return {StatusCode::kNotImplemented, std::move(msg)}; }
  static Status AlreadyExists(std::string msg) { return {StatusCode::kAlreadyExists, std::move(msg)}; }
  static Status Internal(std::string msg) { return {StatusCode::kInternal, std::move(msg)}; }

  bool ok() const { return state_ == nullptr; }
  StatusCode code() const { return state_ ? state_->code : StatusCode::kOk; }
  const std::string& message() const;
  bool IsInvalidArgument() const { return code() == StatusCode::kInvalidArgument; }
  bool IsNotFound() const { return code() == StatusCode::kNotFound; }
  bool IsCorruption() const { return code() == StatusCode::kCorruption; }
  bool IsIOError() const { return code() == StatusCode::kIOError; }
  bool IsConflict() const { return code() == StatusCode::kConflict; }
  bool IsUnavailable() const { return code() == StatusCode::kUnavailable; }
  bool IsDataLoss() const { return code() == StatusCode::kDataLoss; }
  bool IsCancelled() const { return code() == StatusCode::kCancelled; }
  bool IsNotImplemented() const { return code() == StatusCode::kNotImplemented; }
  bool IsAlreadyExists() const { return code() == StatusCode::kAlreadyExists; }

  // "Corruption: <message>".
  std::string ToString() const;
  // Returns a status with the same code and `context + ": " + message`.
  Status WithContext(std::string_view context) const;

 private:
  struct State {
    StatusCode code;
    std::string message;
  };
  std::shared_ptr<const State> state_;  // immutable once built, so sharing on copy is safe
};

}  // namespace weir

#define WEIR_CONCAT_INNER(a, b) a##b
#define WEIR_CONCAT(a, b) WEIR_CONCAT_INNER(a, b)

// Returns from the enclosing function if `expr` (a Status) is not OK.
#define WEIR_RETURN_NOT_OK(expr)                 \
  do {                                           \
    ::weir::Status _weir_st = (expr);            \
    if (!_weir_st.ok()) return _weir_st;         \
  } while (false)
