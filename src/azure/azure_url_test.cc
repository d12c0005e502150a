#include "azure/azure_url.h"

#include <gtest/gtest.h>

#include "base/testing.h"

namespace weir::azure {
namespace {

TEST(AzureUrlTest, Abfss) {
  std::string url = "abfss://lake@myacct.dfs.core.windows.net/tables/orders/";
  EXPECT_TRUE(IsAzureUrl(url));
  ASSERT_OK_AND_ASSIGN(BlobLocation l, ParseAzureUrl(url));
  EXPECT_EQ(l.endpoint, "https://myacct.blob.core.windows.net");
  EXPECT_EQ(l.account, "myacct");
  EXPECT_EQ(l.container, "lake");
  EXPECT_EQ(l.path, "tables/orders");
  EXPECT_EQ(l.query, "");

  ASSERT_OK_AND_ASSIGN(l, ParseAzureUrl("abfs://lake@MyAcct.dfs.core.windows.net"));
  EXPECT_EQ(l.endpoint, "http://myacct.blob.core.windows.net");
  EXPECT_EQ(l.container, "lake");
  EXPECT_EQ(l.path, "");
}

TEST(AzureUrlTest, HttpsBlobAndDfsEndpoints) {
  ASSERT_OK_AND_ASSIGN(BlobLocation l,
                       ParseAzureUrl("https://acct.blob.core.windows.net/c/a/b%20c.json"));
  EXPECT_EQ(l.endpoint, "https://acct.blob.core.windows.net");
  EXPECT_EQ(l.account, "acct");
  EXPECT_EQ(l.container, "c");
  EXPECT_EQ(l.path, "a/b c.json");

  ASSERT_OK_AND_ASSIGN(l, ParseAzureUrl("https://acct.dfs.core.windows.net/c/x"));
  EXPECT_EQ(l.endpoint, "https://acct.blob.core.windows.net");  // the Blob API endpoint
  EXPECT_EQ(l.path, "x");

  ASSERT_OK_AND_ASSIGN(l, ParseAzureUrl("https://acct.blob.core.chinacloudapi.cn/c"));
  EXPECT_EQ(l.endpoint, "https://acct.blob.core.chinacloudapi.cn");
  EXPECT_EQ(l.path, "");
}

TEST(AzureUrlTest, PathStyleForAzurite) {
  std::string url = "http://127.0.0.1:10000/devstoreaccount1/weir/t/_delta_log";
  EXPECT_TRUE(IsAzureUrl(url));
  ASSERT_OK_AND_ASSIGN(BlobLocation l, ParseAzureUrl(url));
  EXPECT_EQ(l.endpoint, "http://127.0.0.1:10000/devstoreaccount1");
  EXPECT_EQ(l.account, "devstoreaccount1");
  EXPECT_EQ(l.container, "weir");
  EXPECT_EQ(l.path, "t/_delta_log");

  ASSERT_OK_AND_ASSIGN(l, ParseAzureUrl("http://localhost:4000/acct/c"));
  EXPECT_EQ(l.endpoint, "http://localhost:4000/acct");
  EXPECT_EQ(l.container, "c");
}

TEST(AzureUrlTest, SasQueryIsKeptApartAndRedactedInErrors) {
  std::string url = "https://acct.blob.core.windows.net/c/p?sv=2022-11-02&sig=SECRETSIG";
  ASSERT_OK_AND_ASSIGN(BlobLocation l, ParseAzureUrl(url));
  EXPECT_EQ(l.path, "p");
  EXPECT_EQ(l.query, "sv=2022-11-02&sig=SECRETSIG");

  auto bad = ParseAzureUrl("https://acct.blob.core.windows.net/?sig=SECRETSIG");
  ASSERT_STATUS_CODE(kInvalidArgument, bad);
  EXPECT_EQ(bad.status().message().find("SECRETSIG"), std::string::npos)
      << bad.status().message();
  EXPECT_NE(bad.status().message().find("?<redacted>"), std::string::npos);
}

TEST(AzureUrlTest, NotAzure) {
  EXPECT_FALSE(IsAzureUrl("/tmp/lake/orders"));
  EXPECT_FALSE(IsAzureUrl("relative/path"));
  EXPECT_FALSE(IsAzureUrl("s3://bucket/key"));
  EXPECT_FALSE(IsAzureUrl("https://example.com/c/x"));
  EXPECT_FALSE(IsAzureUrl("abfss://c@example.com/x"));
  ASSERT_STATUS_CODE(kInvalidArgument, ParseAzureUrl("https://example.com/c/x"));
  ASSERT_STATUS_CODE(kInvalidArgument, ParseAzureUrl("abfss://@acct.dfs.core.windows.net/x"));
  ASSERT_STATUS_CODE(kInvalidArgument, ParseAzureUrl("http://127.0.0.1:1/devstoreaccount1"));
}

TEST(AzureUrlTest, PercentEncoding) {
  EXPECT_EQ(PercentEncode("a b/c+d%e~f", true), "a%20b/c%2Bd%25e~f");
  EXPECT_EQ(PercentEncode("a b/c", false), "a%20b%2Fc");
  EXPECT_EQ(PercentEncode("\xc3\xbc", true), "%C3%BC");
  EXPECT_EQ(PercentDecode("a%20b%2fc%C3%BC"), "a b/c\xc3\xbc");
  EXPECT_EQ(PercentDecode("100%"), "100%");  // malformed escapes stay
  EXPECT_EQ(PercentDecode("%zz"), "%zz");
}

TEST(AzureUrlTest, RedactUrl) {
  EXPECT_EQ(RedactUrl("https://a.blob.core.windows.net/c/x?sig=abc"),
            "https://a.blob.core.windows.net/c/x?<redacted>");
  EXPECT_EQ(RedactUrl("https://a.blob.core.windows.net/c/x"),
            "https://a.blob.core.windows.net/c/x");
}

}  // namespace
}  // namespace weir::azure
