#include "azure/blob_client.h"

#include <gtest/gtest.h>

#include <atomic>

#include "azure/blob_file_system.h"
#include "azure/fake_transport.h"
#include "base/testing.h"

namespace weir::azure {
namespace {

constexpr char kKey[] =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

HttpResponse WithCode(long status, const std::string& code) {
  return FakeTransport::Response(status, {{"x-ms-error-code", code}});
}

TEST(StatusFromResponseTest, MapsStatusesToCodes) {
  Status st = StatusFromResponse("read", "c/a.json", WithCode(404, "BlobNotFound"));
  EXPECT_TRUE(st.IsNotFound());
  EXPECT_EQ(st.message(), "read c/a.json: HTTP 404 BlobNotFound");

  st = StatusFromResponse("write", "c/0.json", WithCode(409, "BlobAlreadyExists"),
                          Condition::kIfNoneMatchAny);
  EXPECT_TRUE(st.IsAlreadyExists()) << st.ToString();
  st = StatusFromResponse("write", "c/0.json", WithCode(412, "ConditionNotMet"),
                          Condition::kIfNoneMatchAny);
  EXPECT_TRUE(st.IsAlreadyExists()) << st.ToString();
  // Without a create condition a 409 is just an error (e.g. a lease conflict).
  st = StatusFromResponse("write", "c/0.json", WithCode(409, "LeaseIdMissing"));
  EXPECT_TRUE(st.IsIOError()) << st.ToString();

  st = StatusFromResponse("read", "c/a", WithCode(403, "AuthenticationFailed"));
  EXPECT_TRUE(st.IsIOError());
  EXPECT_NE(st.message().find("HTTP 403 AuthenticationFailed"), std::string::npos);
  EXPECT_NE(st.message().find("account key"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("SAS"), std::string::npos);

  EXPECT_TRUE(StatusFromResponse("read", "c/a", WithCode(503, "ServerBusy")).IsUnavailable());
  EXPECT_TRUE(StatusFromResponse("read", "c/a", WithCode(429, "")).IsUnavailable());
  st = StatusFromResponse("read", "c/a", WithCode(400, "InvalidHeaderValue"));
  EXPECT_TRUE(st.IsIOError());
  EXPECT_EQ(st.message(), "read c/a: HTTP 400 InvalidHeaderValue");

  // The code can come from the XML body instead of the header.
  st = StatusFromResponse(
      "list", "c", FakeTransport::Response(400, {}, "<?xml version=\"1.0\"?><Error><Code>"
                                                    "InvalidQueryParameterValue</Code></Error>"));
  EXPECT_EQ(st.message(), "list c: HTTP 400 InvalidQueryParameterValue");
}

TEST(ParseListBlobsXmlTest, BlobsPrefixesMarkersAndEscapes) {
  std::string xml = R"(<?xml version="1.0" encoding="utf-8"?>
<EnumerationResults ServiceEndpoint="http://x/" ContainerName="c"><Prefix>t/</Prefix>
<MaxResults>3</MaxResults><Delimiter>/</Delimiter><Blobs>
<Blob><Name>t/a&amp;b &lt;1&gt;.json</Name><Properties><Last-Modified>Sun, 06 Nov 1994 08:49:37 GMT</Last-Modified><Etag>0x1</Etag><Content-Length>42</Content-Length><BlobType>BlockBlob</BlobType></Properties><Metadata /></Blob>
<BlobPrefix><Name>t/_delta_log/</Name></BlobPrefix>
<Blob><Name Encoded="true">t/bad%EF%BF%BEname</Name><Properties><Content-Length>1</Content-Length></Properties></Blob>
<Blob><Name>t/dir</Name><Properties><Content-Length>0</Content-Length></Properties><Metadata><hdi_isfolder>true</hdi_isfolder></Metadata></Blob>
</Blobs><NextMarker>2!abc&amp;</NextMarker></EnumerationResults>)";
  ASSERT_OK_AND_ASSIGN(ListPage page, ParseListBlobsXml(xml));
  ASSERT_EQ(page.items.size(), 4u);
  EXPECT_EQ(page.items[0].name, "t/a&b <1>.json");
  EXPECT_EQ(page.items[0].size, 42);
  EXPECT_EQ(page.items[0].mtime_ms, 784111777000);
  EXPECT_FALSE(page.items[0].is_prefix);
  EXPECT_EQ(page.items[1].name, "t/_delta_log");
  EXPECT_TRUE(page.items[1].is_prefix);
  EXPECT_EQ(page.items[2].name, "t/bad\xEF\xBF\xBEname");
  EXPECT_EQ(page.items[3].name, "t/dir");
  EXPECT_TRUE(page.items[3].is_prefix);
  EXPECT_EQ(page.next_marker, "2!abc&");

  ASSERT_OK_AND_ASSIGN(page, ParseListBlobsXml(
                                 "<EnumerationResults><Blobs /><NextMarker /></EnumerationResults>"));
  EXPECT_TRUE(page.items.empty());
  EXPECT_EQ(page.next_marker, "");

  ASSERT_STATUS_CODE(kCorruption, ParseListBlobsXml("<html>proxy error</html>"));
  ASSERT_STATUS_CODE(kCorruption,
                     ParseListBlobsXml("<EnumerationResults><Blobs><Blob><Name>x</Name>"));
}

TEST(HttpDateTest, RoundTrip) {
  EXPECT_EQ(FormatHttpDate(784111777), "Sun, 06 Nov 1994 08:49:37 GMT");
  EXPECT_EQ(ParseHttpDate("Sun, 06 Nov 1994 08:49:37 GMT"), 784111777000);
  EXPECT_EQ(ParseHttpDate(FormatHttpDate(1'800'000'000)), int64_t{1'800'000'000'000});
  EXPECT_EQ(ParseHttpDate("yesterday"), std::nullopt);
  EXPECT_EQ(ParseHttpDate("Sun, 06 Foo 1994 08:49:37 GMT"), std::nullopt);
}

class BlobClientTest : public ::testing::Test {
 protected:
  std::unique_ptr<BlobClient> MakeClient(FakeTransport* transport,
                                         AzureCredentials credentials =
                                             AzureCredentials::SharedKey(kKey)) {
    BlobClient::Options options;
    auto client = std::make_unique<BlobClient>("http://127.0.0.1:9/devstoreaccount1",
                                               "devstoreaccount1", std::move(credentials),
                                               transport, options);
    client->SetSleepForTesting([this](int64_t ms) { sleeps_.push_back(ms); });
    return client;
  }
  std::vector<int64_t> sleeps_;
};

TEST_F(BlobClientTest, SignsRequestsWithSharedKey) {
  FakeTransport transport([](const RecordedRequest&) { return FakeTransport::Response(201); });
  auto client = MakeClient(&transport);
  ASSERT_OK(client->PutBlob("weir", "dir/a b.json", "hello world", Condition::kIfNoneMatchAny));
  auto requests = transport.requests();
  ASSERT_EQ(requests.size(), 1u);
  const RecordedRequest& r = requests[0];
  EXPECT_EQ(r.method, "PUT");
  EXPECT_EQ(r.url, "http://127.0.0.1:9/devstoreaccount1/weir/dir/a%20b.json");
  EXPECT_EQ(r.body, "hello world");
  EXPECT_EQ(r.Header("If-None-Match"), "*");
  EXPECT_EQ(r.Header("x-ms-blob-type"), "BlockBlob");
  EXPECT_EQ(r.Header("x-ms-version"), "2023-11-03");
  EXPECT_FALSE(r.Header("x-ms-date").empty());
  EXPECT_TRUE(r.Header("Authorization").starts_with("SharedKey devstoreaccount1:"))
      << r.Header("Authorization");
}

TEST_F(BlobClientTest, RetriesBusyAndFailedConnectionsWithBackoff) {
  std::atomic<int> calls{0};
  FakeTransport transport([&](const RecordedRequest&) -> Result<HttpResponse> {
    int n = calls.fetch_add(1);
    if (n == 0) return Status::Unavailable("HTTP PUT http://x failed: connection refused");
    if (n == 1) return FakeTransport::Response(503, {{"x-ms-error-code", "ServerBusy"}});
    if (n == 2) return FakeTransport::Response(429, {{"retry-after", "3"}});
    return FakeTransport::Response(201);
  });
  auto client = MakeClient(&transport);
  ASSERT_OK(client->PutBlob("weir", "a", "x", Condition::kNone));
  EXPECT_EQ(calls.load(), 4);
  EXPECT_EQ(client->retries(), 3);
  EXPECT_EQ(client->metrics().requests, 4);
  EXPECT_EQ(client->metrics().bytes_sent, 4);  // "x" four times
  ASSERT_EQ(sleeps_.size(), 3u);
  EXPECT_GE(sleeps_[0], 100);  // 200 ms with jitter in [50%, 100%]
  EXPECT_LE(sleeps_[0], 200);
  EXPECT_GE(sleeps_[1], 200);
  EXPECT_LE(sleeps_[1], 400);
  EXPECT_GE(sleeps_[2], 3000);  // Retry-After wins over a shorter backoff
  // Every attempt is signed anew (a fresh x-ms-date).
  for (const auto& r : transport.requests()) EXPECT_FALSE(r.Header("Authorization").empty());
}

TEST_F(BlobClientTest, RetriesAreBounded) {
  FakeTransport transport([](const RecordedRequest&) {
    return FakeTransport::Response(500, {{"x-ms-error-code", "InternalError"}});
  });
  auto client = MakeClient(&transport);
  Status st = client->PutBlob("weir", "a", "x", Condition::kNone);
  EXPECT_TRUE(st.IsUnavailable()) << st.ToString();
  EXPECT_NE(st.message().find("HTTP 500 InternalError"), std::string::npos);
  EXPECT_EQ(transport.requests().size(), 6u);  // RetryPolicy::max_attempts
  for (int64_t ms : sleeps_) EXPECT_LE(ms, 10'000);
}

TEST_F(BlobClientTest, ClientErrorsAreNotRetried) {
  FakeTransport transport(
      [](const RecordedRequest&) { return WithCode(403, "AuthorizationPermissionMismatch"); });
  auto client = MakeClient(&transport);
  Status st = client->DeleteBlob("weir", "a");
  EXPECT_TRUE(st.IsIOError());
  EXPECT_EQ(transport.requests().size(), 1u);
  EXPECT_TRUE(sleeps_.empty());
}

TEST_F(BlobClientTest, SasIsAppendedButNeverInErrors) {
  FakeTransport transport([](const RecordedRequest& r) -> Result<HttpResponse> {
    if (r.method == "DELETE") return Status::Unavailable("HTTP DELETE " + RedactUrl(r.url) + " failed");
    return WithCode(404, "BlobNotFound");
  });
  auto client = MakeClient(&transport, AzureCredentials::Sas("?sv=2022-11-02&sig=TOPSECRET"));
  auto properties = client->GetProperties("weir", "x y");
  ASSERT_STATUS_CODE(kNotFound, properties);
  EXPECT_EQ(properties.status().message().find("TOPSECRET"), std::string::npos);
  EXPECT_EQ(transport.requests()[0].url,
            "http://127.0.0.1:9/devstoreaccount1/weir/x%20y?sv=2022-11-02&sig=TOPSECRET");
  EXPECT_TRUE(transport.requests()[0].Header("Authorization").empty());
  Status st = client->DeleteBlob("weir", "x");
  EXPECT_TRUE(st.IsUnavailable());
  EXPECT_EQ(st.message().find("TOPSECRET"), std::string::npos) << st.message();
}

TEST(CurlTransportTest, ConnectionFailureIsUnavailableAndRedacted) {
  CurlTransport transport;
  HttpRequest request;
  request.method = "GET";
  request.url = "http://127.0.0.1:1/devstoreaccount1/c/x?sig=TOPSECRET";  // nothing listens
  auto response = transport.Send(request);
  ASSERT_STATUS_CODE(kUnavailable, response);
  EXPECT_EQ(response.status().message().find("TOPSECRET"), std::string::npos)
      << response.status().message();
  EXPECT_NE(response.status().message().find("127.0.0.1:1"), std::string::npos);
}

// The file system over a fake service that keeps blobs in a map.
class FakeBlobService {
 public:
  FakeBlobService()
      : transport_([this](const RecordedRequest& r) { return Handle(r); }) {}

  FakeTransport* transport() { return &transport_; }
  std::map<std::string, std::string> blobs;
  // PUTs answered with 500 after storing the blob (the response "lost").
  int lose_put_responses = 0;
  // PUTs answered with 500 having stored `intruder` instead (another writer got in between).
  int fail_puts_for_intruder = 0;
  std::string intruder;

 private:
  Result<HttpResponse> Handle(const RecordedRequest& r) {
    std::string path = r.url.substr(std::string("http://127.0.0.1:9/devstoreaccount1/").size());
    path = path.substr(0, path.find('?'));
    path = PercentDecode(path);
    if (r.method == "PUT") {
      if (fail_puts_for_intruder > 0) {
        --fail_puts_for_intruder;
        blobs[path] = intruder;
        return WithCode(503, "ServerBusy");
      }
      if (r.Header("If-None-Match") == "*" && blobs.count(path)) {
        return WithCode(409, "BlobAlreadyExists");
      }
      blobs[path] = r.body;
      if (lose_put_responses > 0) {
        --lose_put_responses;
        return WithCode(500, "InternalError");
      }
      return FakeTransport::Response(201);
    }
    if (r.method == "GET") {
      auto it = blobs.find(path);
      if (it == blobs.end()) return WithCode(404, "BlobNotFound");
      return FakeTransport::Response(200, {}, it->second);
    }
    return WithCode(400, "Unsupported");
  }

  FakeTransport transport_;
};

BlobFileSystem MakeFileSystem(FakeBlobService* service, const std::string& url) {
  BlobFileSystem::Options options;
  options.client.retry.initial_backoff_ms = 1;
  options.client.retry.max_backoff_ms = 1;
  auto location = ParseAzureUrl(url).ValueOrDie();
  return BlobFileSystem(location, AzureCredentials::SharedKey(kKey), service->transport(),
                        options);
}

TEST(BlobFileSystemTest, PathsResolveAgainstTheRoot) {
  FakeBlobService service;
  BlobFileSystem fs = MakeFileSystem(&service, "http://127.0.0.1:9/devstoreaccount1/weir/lake");
  EXPECT_EQ(fs.BlobName("t/_delta_log").ValueOrDie(), "lake/t/_delta_log");
  EXPECT_EQ(fs.BlobName("/t/").ValueOrDie(), "lake/t");
  EXPECT_EQ(fs.BlobName(".").ValueOrDie(), "lake");
  EXPECT_EQ(fs.BlobName("").ValueOrDie(), "lake");
  EXPECT_EQ(fs.BlobName("http://127.0.0.1:9/devstoreaccount1/weir/other/x").ValueOrDie(),
            "other/x");
  ASSERT_STATUS_CODE(kInvalidArgument,
                     fs.BlobName("http://127.0.0.1:9/devstoreaccount1/elsewhere/x"));
  ASSERT_STATUS_CODE(kInvalidArgument, fs.BlobName("https://acct.blob.core.windows.net/weir/x"));
}

TEST(BlobFileSystemTest, RetriedPutIfAbsentWhoseFirstAttemptLandedSucceeds) {
  FakeBlobService service;
  BlobFileSystem fs = MakeFileSystem(&service, "http://127.0.0.1:9/devstoreaccount1/weir");
  service.lose_put_responses = 1;  // stored, but the client sees a 500 and retries → 409
  ASSERT_OK(fs.PutIfAbsent("_delta_log/1.json", "mine"));
  EXPECT_EQ(service.blobs["weir/_delta_log/1.json"], "mine");

  // Someone else's commit landing between our attempts is still a conflict.
  service.fail_puts_for_intruder = 1;
  service.intruder = "theirs";
  ASSERT_STATUS_CODE(kAlreadyExists, fs.PutIfAbsent("_delta_log/2.json", "mine"));
  EXPECT_EQ(service.blobs["weir/_delta_log/2.json"], "theirs");
  EXPECT_EQ(service.transport()->requests().size(), 6u);  // twice: put, retried put, get
}

}  // namespace
}  // namespace weir::azure
