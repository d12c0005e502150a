#include "base/status.h"

#include <gtest/gtest.h>

#include "base/result.h"
#include "base/testing.h"

namespace weir {
namespace {

Result<int> Half(int x) {
  if (x % 2 != 0) return Status::InvalidArgument("odd value " + std::to_string(x));
  return x / 2;
}

Result<int> Quarter(int x) {
  WEIR_ASSIGN_OR_RETURN(int h, Half(x));
  return Half(h);
}

TEST(StatusTest, OkHasNoMessage) {
  Status st;
  EXPECT_TRUE(st.ok());
  EXPECT_EQ(st.ToString(), "OK");
  EXPECT_EQ(st.message(), "");
}

TEST(StatusTest, ErrorCarriesCodeAndContext) {
  Status st = Status::Corruption("bad footer").WithContext("file a.parquet");
  EXPECT_TRUE(st.IsCorruption());
  EXPECT_EQ(st.ToString(), "Corruption: file a.parquet: bad footer");
}

TEST(ResultTest, PropagatesErrors) {
  ASSERT_OK_AND_ASSIGN(int q, Quarter(8));
  EXPECT_EQ(q, 2);
  ASSERT_STATUS_CODE(kInvalidArgument, Quarter(6));
  EXPECT_EQ(Quarter(6).status().message(), "odd value 3");
}

}  // namespace
}  // namespace weir
