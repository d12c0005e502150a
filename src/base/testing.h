// GoogleTest helpers for Status and Result (like Arrow's testing/gtest_util.h). Test-only.
#pragma once

#include <gtest/gtest.h>

#include "base/result.h"
#include "base/status.h"

#define ASSERT_OK(expr)                                          \
  do {                                                           \
    ::weir::Status _st = (expr);                                 \
    ASSERT_TRUE(_st.ok()) << #expr << " failed: " << _st.ToString(); \
  } while (false)

#define EXPECT_OK(expr)                                          \
  do {                                                           \
    ::weir::Status _st = (expr);                                 \
    EXPECT_TRUE(_st.ok()) << #expr << " failed: " << _st.ToString(); \
  } while (false)

#define ASSERT_OK_AND_ASSIGN_IMPL(tmp, lhs, rexpr)                             \
  auto tmp = (rexpr);                                                          \
  ASSERT_TRUE(tmp.ok()) << #rexpr << " failed: " << tmp.status().ToString();   \
  lhs = std::move(tmp).MoveValueUnsafe();

#define ASSERT_OK_AND_ASSIGN(lhs, rexpr) \
  ASSERT_OK_AND_ASSIGN_IMPL(WEIR_CONCAT(_weir_test_result_, __LINE__), lhs, rexpr)

// Asserts that `expr` (a Status or Result) failed with the given StatusCode, e.g. kCorruption.
#define ASSERT_STATUS_CODE(code_name, expr)                                            \
  do {                                                                                 \
    const auto& _r = (expr);                                                           \
    ::weir::Status _st = ::weir::testing_internal::StatusOf(_r);                       \
    ASSERT_EQ(_st.code(), ::weir::StatusCode::code_name) << "got " << _st.ToString(); \
  } while (false)

namespace weir::testing_internal {
inline Status StatusOf(const Status& s) { return s; }
template <typename T>
Status StatusOf(const Result<T>& r) {
  return r.ok() ? Status::OK() : r.status();
}
}  // namespace weir::testing_internal
