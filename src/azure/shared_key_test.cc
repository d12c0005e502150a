#include "azure/shared_key.h"

#include <gtest/gtest.h>

#include "base/testing.h"

namespace weir::azure {
namespace {

constexpr char kAzuriteKey[] =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

std::string Hex(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (char c : bytes) {
    out += kHex[static_cast<unsigned char>(c) >> 4];
    out += kHex[static_cast<unsigned char>(c) & 15];
  }
  return out;
}

TEST(Base64Test, RoundTripsAndRejectsGarbage) {
  EXPECT_EQ(Base64Encode(""), "");
  EXPECT_EQ(Base64Encode("f"), "Zg==");
  EXPECT_EQ(Base64Encode("fo"), "Zm8=");
  EXPECT_EQ(Base64Encode("foo"), "Zm9v");
  EXPECT_EQ(Base64Encode("foobar"), "Zm9vYmFy");
  ASSERT_OK_AND_ASSIGN(std::string decoded, Base64Decode("Zm9vYg=="));
  EXPECT_EQ(decoded, "foob");
  ASSERT_OK_AND_ASSIGN(decoded, Base64Decode("Zm9vYmE="));
  EXPECT_EQ(decoded, "fooba");
  ASSERT_OK_AND_ASSIGN(decoded, Base64Decode(kAzuriteKey));
  EXPECT_EQ(decoded.size(), 64u);
  ASSERT_STATUS_CODE(kInvalidArgument, Base64Decode("Zm9"));     // bad length
  ASSERT_STATUS_CODE(kInvalidArgument, Base64Decode("Zm9v!!=="));  // bad characters
  ASSERT_STATUS_CODE(kInvalidArgument, Base64Decode("Zg==Zg=="));  // padding inside
}

TEST(HmacSha256Test, Rfc4231TestCase2) {
  EXPECT_EQ(Hex(HmacSha256("Jefe", "what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

// A conditional Put Blob to Azurite (path-style: the account appears twice in the resource).
// The string-to-sign below is written out by hand from the documented rules: verb, then the
// twelve standard header lines (Content-Length 11; Content-Type; If-None-Match *), the x-ms-*
// headers lower-cased and sorted, then "/account" + the encoded URL path.
TEST(SharedKeyTest, PutBlobStringToSignAndSignature) {
  HttpHeaders headers = {{"x-ms-version", "2023-11-03"},
                         {"Content-Type", "application/octet-stream"},
                         {"X-MS-Blob-Type", " BlockBlob "},
                         {"If-None-Match", "*"},
                         {"x-ms-date", "Sun, 29 Nov 2026 17:00:00 GMT"}};
  HttpHeaders query;
  SignableRequest request;
  request.method = "PUT";
  request.account = "devstoreaccount1";
  request.encoded_path = "/devstoreaccount1/weir/dir/a%20b.json";
  request.query = &query;
  request.headers = &headers;
  request.content_length = 11;
  EXPECT_EQ(SharedKeyStringToSign(request),
            "PUT\n"
            "\n"                           // Content-Encoding
            "\n"                           // Content-Language
            "11\n"                         // Content-Length
            "\n"                           // Content-MD5
            "application/octet-stream\n"  // Content-Type
            "\n"                           // Date (x-ms-date is used)
            "\n"                           // If-Modified-Since
            "\n"                           // If-Match
            "*\n"                          // If-None-Match
            "\n"                           // If-Unmodified-Since
            "\n"                           // Range
            "x-ms-blob-type:BlockBlob\n"
            "x-ms-date:Sun, 29 Nov 2026 17:00:00 GMT\n"
            "x-ms-version:2023-11-03\n"
            "/devstoreaccount1/devstoreaccount1/weir/dir/a%20b.json");
  // HMAC-SHA256 under the decoded key, computed independently (python3 hmac) from the string above.
  ASSERT_OK_AND_ASSIGN(std::string authorization,
                       SharedKeyAuthorization("devstoreaccount1", kAzuriteKey, request));
  EXPECT_EQ(authorization,
            "SharedKey devstoreaccount1:xCgNHd6xa82OGmQIbXXakhg1lYrBvxJIfRmzUjQezbI=");
}

// List Blobs: no body (Content-Length signs as empty), query parameters lower-cased and sorted,
// repeated parameters joined by commas in sorted order, values decoded.
TEST(SharedKeyTest, QueryParametersAreCanonicalized) {
  HttpHeaders headers = {{"x-ms-date", "Sun, 29 Nov 2026 17:00:00 GMT"},
                         {"x-ms-version", "2023-11-03"}};
  HttpHeaders query = {{"restype", "container"},
                       {"COMP", "list"},
                       {"include", "snapshots"},
                       {"include", "metadata"}};
  SignableRequest request;
  request.method = "GET";
  request.account = "myaccount";
  request.encoded_path = "/mycontainer";
  request.query = &query;
  request.headers = &headers;
  EXPECT_EQ(SharedKeyStringToSign(request),
            "GET\n\n\n\n\n\n\n\n\n\n\n\n"
            "x-ms-date:Sun, 29 Nov 2026 17:00:00 GMT\n"
            "x-ms-version:2023-11-03\n"
            "/myaccount/mycontainer\n"
            "comp:list\n"
            "include:metadata,snapshots\n"
            "restype:container");
  ASSERT_OK_AND_ASSIGN(std::string authorization,
                       SharedKeyAuthorization("myaccount", kAzuriteKey, request));
  EXPECT_EQ(authorization, "SharedKey myaccount:3oM1bIyBlq4MOEU1/cZeA0tHk84Yl3vjHJA5Iq0jgq8=");
}

TEST(SharedKeyTest, BadKeyIsInvalidArgumentWithoutTheKey) {
  SignableRequest request;
  request.method = "GET";
  request.account = "acct";
  request.encoded_path = "/c";
  auto authorization = SharedKeyAuthorization("acct", "not*a*key", request);
  ASSERT_STATUS_CODE(kInvalidArgument, authorization);
  EXPECT_EQ(authorization.status().message().find("not*a*key"), std::string::npos);
  EXPECT_NE(authorization.status().message().find("acct"), std::string::npos);
}

}  // namespace
}  // namespace weir::azure
