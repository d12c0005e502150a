#include "ops/redaction.h"

#include <gtest/gtest.h>

namespace weir::ops {
namespace {

TEST(Redaction, SecretKeysAndValues) {
  EXPECT_TRUE(IsSecretKey("kafka.sasl.jaas.config"));
  EXPECT_TRUE(IsSecretKey("Password"));
  EXPECT_TRUE(IsSecretKey("eventhubs.connectionString"));
  EXPECT_FALSE(IsSecretKey("numRowsTotal"));
  EXPECT_FALSE(IsSecretKey("description"));
  EXPECT_TRUE(LooksLikeSecretValue(
      "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=r;SharedAccessKey=abc"));
  EXPECT_TRUE(
      LooksLikeSecretValue("org.apache.kafka.common.security.plain.PlainLoginModule required "
                           "username=\"$ConnectionString\" password=\"x\";"));
  EXPECT_FALSE(LooksLikeSecretValue("KafkaV2[Subscribe[orders]]"));
}

TEST(Redaction, RedactsNestedJson) {
  std::string out = RedactJson(
      R"({"name":"t","options":{"kafka.sasl.jaas.config":"x required password=\"hunter2\";","subscribe":"orders"},)"
      R"("list":["Endpoint=sb://a/;SharedAccessKey=k2", 3],"numRowsTotal":5})");
  EXPECT_EQ(out.find("hunter2"), std::string::npos);
  EXPECT_EQ(out.find("k2"), std::string::npos);
  EXPECT_NE(out.find("\"subscribe\":\"orders\""), std::string::npos);
  EXPECT_NE(out.find("\"numRowsTotal\":5"), std::string::npos);
  EXPECT_NE(out.find(kRedacted), std::string::npos);
  EXPECT_EQ(RedactJson("plain text"), "plain text");
  EXPECT_EQ(RedactJson("password=abc"), std::string(kRedacted));
}

}  // namespace
}  // namespace weir::ops
