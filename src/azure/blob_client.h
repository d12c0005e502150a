// BlobClient: the Blob service REST operations weir needs (properties, ranged get, put blob,
// put block / block list, copy, delete, list) for one account, with authorization (shared key,
// SAS, Entra ID bearer) and bounded retries with exponential backoff on network faults, 408, 429
// and 5xx, honouring Retry-After. Blob names are given decoded; errors name the blob as
// "<container>/<name>" and never include a key, SAS or token.
// Thread-safe: one client serves many threads.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "azure/credentials.h"
#include "azure/http_transport.h"
#include "base/result.h"

namespace weir::azure {

struct RetryPolicy {
  int max_attempts = 6;  // including the first
  int64_t initial_backoff_ms = 200;
  int64_t max_backoff_ms = 10'000;
  // A Retry-After longer than this is cut to it.
  int64_t max_retry_after_ms = 60'000;
};

struct BlobProperties {
  int64_t size = 0;
  int64_t mtime_ms = 0;
  std::string etag;
  bool is_dir = false;  // hierarchical-namespace directory (metadata hdi_isfolder=true)
};

struct ListedBlob {
  std::string name;  // full blob name, or for a prefix the prefix without its trailing '/'
  int64_t size = 0;
  int64_t mtime_ms = 0;
  bool is_prefix = false;  // a "directory" (BlobPrefix, or an hdi_isfolder blob)
};

struct ListPage {
  std::vector<ListedBlob> items;
  std::string next_marker;  // empty on the last page
};

// Parses a List Blobs response body. Corruption if it is not an EnumerationResults document.
Result<ListPage> ParseListBlobsXml(std::string_view xml);
// "Sun, 06 Nov 1994 08:49:37 GMT" → milliseconds since the epoch; nullopt if malformed.
std::optional<int64_t> ParseHttpDate(std::string_view text);
std::string FormatHttpDate(int64_t unix_seconds);

// Counters of one client since it was created ("probe"): exported by whoever owns the client.
struct BlobClientMetrics {
  int64_t requests = 0;        // HTTP requests sent, retries included
  int64_t retries = 0;         // requests sent again after a retryable failure
  int64_t bytes_sent = 0;      // request bodies
  int64_t bytes_received = 0;  // response bodies
};

enum class Condition {
  kNone,
  kIfNoneMatchAny,  // create only: If-None-Match: *
};

// Maps a failed response to a Status: 404 NotFound; 409/412 AlreadyExists when `condition` is
// kIfNoneMatchAny; 403 IOError with a hint about credentials; 429/5xx Unavailable; others
// IOError. The message reads "<operation> <blob>: HTTP <status> <x-ms-error-code>".
Status StatusFromResponse(std::string_view operation, std::string_view blob,
                          const HttpResponse& response, Condition condition = Condition::kNone);

class BlobClient {
 public:
  struct Options {
    RetryPolicy retry;
    std::string api_version = "2023-11-03";
    // How long Copy Blob may stay pending before a rename gives up.
    int64_t copy_timeout_ms = 10 * 60 * 1000;
  };

  // `endpoint` as in BlobLocation ("https://acct.blob.core.windows.net", or path-style
  // "http://127.0.0.1:10000/acct"). REQUIRES: `transport` outlives the client.
  BlobClient(std::string endpoint, std::string account, AzureCredentials credentials,
             HttpTransport* transport, Options options);
  ~BlobClient();

  const std::string& account() const { return account_; }

  // HEAD. NotFound if the blob does not exist.
  Result<BlobProperties> GetProperties(const std::string& container, const std::string& blob);
  // Whether the container exists (true) or not (false).
  Result<bool> ContainerExists(const std::string& container);
  // Creates the container; AlreadyExists if it exists.
  Status CreateContainer(const std::string& container);
  // GET of bytes [offset, offset+length) into `out`. If `etag` is not empty the read fails
  // (IOError) if the blob changed. Corruption "short read" if the blob ends first.
  Status GetRange(const std::string& container, const std::string& blob, int64_t offset,
                  int64_t length, const std::string& etag, uint8_t* out);
  // The whole blob.
  Result<std::string> GetBlob(const std::string& container, const std::string& blob);
  // One request that creates or replaces a block blob. `retried` (optional) is set to whether the
  // request was sent more than once, so that an AlreadyExists may be the echo of its own success.
  Status PutBlob(const std::string& container, const std::string& blob, std::string_view data,
                 Condition condition, bool* retried = nullptr);
  Status PutBlock(const std::string& container, const std::string& blob,
                  const std::string& block_id, std::string_view data);
  // Commits `block_ids` (each one staged or already committed) as the blob's content.
  Status PutBlockList(const std::string& container, const std::string& blob,
                      const std::vector<std::string>& block_ids, Condition condition,
                      bool* retried = nullptr);
  // Server-side copy within the account; waits until the copy is no longer pending.
  Status CopyBlob(const std::string& container, const std::string& from, const std::string& to,
                  Condition condition);
  Status DeleteBlob(const std::string& container, const std::string& blob);
  // One page of List Blobs; `delimiter` empty for a flat listing.
  Result<ListPage> ListBlobs(const std::string& container, const std::string& prefix,
                             const std::string& delimiter, const std::string& marker,
                             int max_results);

  BlobClientMetrics metrics() const;
  int64_t retries() const { return metrics().retries; }

  // Replaces the sleep between retries (tests).
  void SetSleepForTesting(std::function<void(int64_t ms)> sleep);

 private:
  struct Call;
  // Sends `call` with retries; `attempts` (optional) receives how many times it was sent.
  Result<HttpResponse> Execute(const Call& call, int* attempts = nullptr);
  Status Authorize(const Call& call, HttpRequest* request);
  std::string UrlFor(const std::string& container, const std::string& blob) const;

  const std::string endpoint_;
  const std::string account_;
  const std::string url_path_prefix_;  // the endpoint's own path ("/acct" path-style, or "")
  const AzureCredentials credentials_;
  HttpTransport* const transport_;
  const Options options_;
  std::unique_ptr<TokenSource> tokens_;
  std::function<void(int64_t)> sleep_;
  struct Counters;
  std::unique_ptr<Counters> counters_;
};

}  // namespace weir::azure
