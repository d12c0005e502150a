#include "broker/protocol_names.h"

#include <gtest/gtest.h>

#include "base/testing.h"

namespace weir::broker {
namespace {

TEST(ProtocolNamesTest, ApiKeysByName) {
  ASSERT_OK_AND_ASSIGN(int16_t key, ApiKeyFromName("Produce"));
  EXPECT_EQ(key, 0);
  ASSERT_OK_AND_ASSIGN(key, ApiKeyFromName("fetch"));
  EXPECT_EQ(key, 1);
  ASSERT_OK_AND_ASSIGN(key, ApiKeyFromName("ListOffsets"));
  EXPECT_EQ(key, 2);
  ASSERT_OK_AND_ASSIGN(key, ApiKeyFromName("Metadata"));
  EXPECT_EQ(key, 3);
  ASSERT_OK_AND_ASSIGN(key, ApiKeyFromName("OffsetCommit"));
  EXPECT_EQ(key, 8);
  ASSERT_OK_AND_ASSIGN(key, ApiKeyFromName("FindCoordinator"));
  EXPECT_EQ(key, 10);
  ASSERT_OK_AND_ASSIGN(key, ApiKeyFromName("InitProducerId"));
  EXPECT_EQ(key, 22);
  ASSERT_OK_AND_ASSIGN(key, ApiKeyFromName("18"));
  EXPECT_EQ(key, 18);
  EXPECT_EQ(ApiKeyName(9), "OffsetFetch");
  EXPECT_EQ(ApiKeyName(999), "999");
  ASSERT_STATUS_CODE(kInvalidArgument, ApiKeyFromName("Fetchh"));
  ASSERT_STATUS_CODE(kInvalidArgument, ApiKeyFromName("-1"));
}

TEST(ProtocolNamesTest, ErrorCodesByName) {
  ASSERT_OK_AND_ASSIGN(int code, ErrorCodeFromName("NOT_LEADER_FOR_PARTITION"));
  EXPECT_EQ(code, 6);
  ASSERT_OK_AND_ASSIGN(code, ErrorCodeFromName("NOT_LEADER_OR_FOLLOWER"));
  EXPECT_EQ(code, 6);
  ASSERT_OK_AND_ASSIGN(code, ErrorCodeFromName("RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE"));
  EXPECT_EQ(code, 1);
  ASSERT_OK_AND_ASSIGN(code, ErrorCodeFromName("request_timed_out"));
  EXPECT_EQ(code, 7);
  ASSERT_OK_AND_ASSIGN(code, ErrorCodeFromName("_TRANSPORT"));
  EXPECT_EQ(code, -195);
  ASSERT_OK_AND_ASSIGN(code, ErrorCodeFromName("NO_ERROR"));
  EXPECT_EQ(code, 0);
  ASSERT_OK_AND_ASSIGN(code, ErrorCodeFromName("15"));
  EXPECT_EQ(code, 15);
  EXPECT_EQ(ErrorCodeName(6), "NOT_LEADER_FOR_PARTITION");
  EXPECT_EQ(ErrorCodeName(0), "NO_ERROR");
  ASSERT_STATUS_CODE(kInvalidArgument, ErrorCodeFromName("NOT_AN_ERROR"));
}

}  // namespace
}  // namespace weir::broker
