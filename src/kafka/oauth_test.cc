#include "kafka/oauth.h"

#include <gtest/gtest.h>

#include "base/testing.h"

namespace weir::kafka {
namespace {

OAuthClientCredentials Credentials() {
  OAuthClientCredentials c;
  c.token_endpoint_url = "https://login.microsoftonline.com/tenant-1/oauth2/v2.0/token";
  c.client_id = "app-1";
  c.client_secret = "s3cr3t+/=&value";
  c.scope = "https://ns.servicebus.windows.net/.default";
  return c;
}

TEST(OAuthTest, ClientCredentialsBodyIsFormEncoded) {
  EXPECT_EQ(ClientCredentialsRequestBody(Credentials()),
            "grant_type=client_credentials&client_id=app-1&client_secret=s3cr3t%2B%2F%3D%26value"
            "&scope=https%3A%2F%2Fns.servicebus.windows.net%2F.default");
}

TEST(OAuthTest, ParsesTokensAndErrors) {
  Redactor redactor;
  redactor.AddSecret("s3cr3t+/=&value");
  ASSERT_OK_AND_ASSIGN(OAuthToken token,
                       ParseTokenResponse(200,
                                          R"({"token_type":"Bearer","expires_in":3599,)"
                                          R"("access_token":"eyJ0.abc.def"})",
                                          1000, "app-1", redactor));
  EXPECT_EQ(token.value, "eyJ0.abc.def");
  EXPECT_EQ(token.expires_at_ms, 1000 + 3599 * 1000);
  EXPECT_EQ(token.principal, "app-1");

  auto refused = ParseTokenResponse(
      401,
      R"({"error":"invalid_client","error_description":"AADSTS7000215: Invalid client secret provided: s3cr3t+/=&value"})",
      0, "app-1", redactor);
  ASSERT_STATUS_CODE(kInvalidArgument, refused);
  EXPECT_NE(refused.status().message().find("invalid_client: AADSTS7000215"), std::string::npos);
  EXPECT_EQ(refused.status().message().find("s3cr3t"), std::string::npos);
  ASSERT_STATUS_CODE(kUnavailable, ParseTokenResponse(503, "busy", 0, "app-1", redactor));
  ASSERT_STATUS_CODE(kUnavailable, ParseTokenResponse(200, "{}", 0, "app-1", redactor));
}

class FakePoster : public HttpsPoster {
 public:
  std::string url, body;
  Result<std::pair<int, std::string>> PostForm(const std::string& u, const std::string& b) override {
    url = u;
    body = b;
    return std::make_pair(200, std::string(R"({"access_token":"tok","expires_in":"60"})"));
  }
};

TEST(OAuthTest, TokenSourcePostsToTheTokenEndpoint) {
  auto poster = std::make_unique<FakePoster>();
  FakePoster* raw = poster.get();
  ClientCredentialsTokenSource source(Credentials(), Redactor(), std::move(poster));
  ASSERT_OK_AND_ASSIGN(OAuthToken token, source.Token());
  EXPECT_EQ(token.value, "tok");
  EXPECT_EQ(raw->url, "https://login.microsoftonline.com/tenant-1/oauth2/v2.0/token");
  EXPECT_NE(raw->body.find("grant_type=client_credentials"), std::string::npos);
  EXPECT_GT(token.expires_at_ms, 60 * 1000);
}

TEST(OAuthTest, CurlTransportReportsUnreachableEndpoints) {
  auto poster = MakeCurlHttpsPoster(2000);
  if (!poster.ok()) GTEST_SKIP() << poster.status().ToString();
  auto r = (*poster)->PostForm("https://127.0.0.1:1/token", "grant_type=client_credentials");
  ASSERT_STATUS_CODE(kUnavailable, r);
  EXPECT_NE(r.status().message().find("https://127.0.0.1:1/token"), std::string::npos);
}

}  // namespace
}  // namespace weir::kafka
