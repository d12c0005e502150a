// GoogleTest helpers for Status and Result (like Arrow's testing/gtest_util.h). Test-only.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

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

namespace weir::testing {

// $WEIR_CONFORMANCE_DIR/<sub> (the corpora of files other engines wrote; the Makefile sets the
// variable) when that is a directory, else "".
inline std::string ConformancePath(const std::string& sub) {
  const char* dir = std::getenv("WEIR_CONFORMANCE_DIR");
  if (dir == nullptr || *dir == '\0') return "";
  const std::string path = sub.empty() ? std::string(dir) : std::string(dir) + "/" + sub;
  std::error_code ec;
  return std::filesystem::is_directory(path, ec) ? path : "";
}

inline bool UnderCi() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string(ci) == "true";
}

}  // namespace weir::testing

// Declares `var` = $WEIR_CONFORMANCE_DIR/<sub>. When that corpus is missing the test is skipped
// loudly, or fails under CI=true (where a missing corpus must not pass unnoticed).
#define WEIR_REQUIRE_CONFORMANCE(var, sub)                                                  \
  const std::string var = ::weir::testing::ConformancePath(sub);                            \
  if (var.empty()) {                                                                        \
    if (::weir::testing::UnderCi()) {                                                       \
      FAIL() << "conformance corpus '" << (sub) << "' missing under CI=true "               \
             << "(set WEIR_CONFORMANCE_DIR)";                                               \
    }                                                                                       \
    std::fprintf(stderr, "\n*** SKIPPED LOUDLY: conformance corpus '%s' not found; set "    \
                 "WEIR_CONFORMANCE_DIR (make test does) ***\n\n", std::string(sub).c_str()); \
    GTEST_SKIP() << "conformance corpus '" << (sub) << "' missing";                         \
  }
