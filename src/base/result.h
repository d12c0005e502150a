// Result<T>: either a value of type T or a non-OK Status. Like arrow::Result.
// Access the value only after checking ok(); ValueOrDie() aborts on error (tests and invariants).
#pragma once

#include <cstdlib>
#include <cstdio>
#include <optional>
#include <utility>

#include "base/status.h"

namespace weir {

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design
    if (status_.ok()) status_ = Status::Internal("Result constructed from an OK status");
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }

  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }
  T&& operator*() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

  T& ValueOrDie() & {
    Check();
    return *value_;
  }
  T ValueOrDie() && {
    Check();
    return std::move(*value_);
  }
  T MoveValueUnsafe() { return std::move(*value_); }

 private:
  void Check() const {
    if (!ok()) {
      std::fprintf(stderr, "ValueOrDie on an error: %s\n", status_.ToString().c_str());
      std::abort();
    }
  }
  Status status_;
  std::optional<T> value_;
};

}  // namespace weir

#define WEIR_ASSIGN_OR_RETURN_IMPL(tmp, lhs, rexpr) \
  auto tmp = (rexpr);                               \
  if (!tmp.ok()) return tmp.status();               \
  lhs = std::move(tmp).MoveValueUnsafe();

// `WEIR_ASSIGN_OR_RETURN(auto x, Foo());` declares x, or returns Foo()'s error status.
#define WEIR_ASSIGN_OR_RETURN(lhs, rexpr) \
  WEIR_ASSIGN_OR_RETURN_IMPL(WEIR_CONCAT(_weir_result_, __LINE__), lhs, rexpr)
