// Azure storage URLs: which forms weir accepts, how they map to (endpoint, account, container,
// blob path), percent-encoding for request URLs, and redaction of query strings (SAS tokens) so a
// URL can be named in an error message. Pure functions; thread-safe.
// Accepted: abfss://container@account.dfs.core.windows.net/path (abfs:// uses http),
// https://account.blob.core.windows.net/container/path (also .dfs.), and path-style
// http://127.0.0.1:PORT/account/container/path where the host is an IP literal or localhost
// (Azurite).
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"

namespace weir::azure {

// Where a blob (or a prefix of blobs) lives.
struct BlobLocation {
  // Blob service endpoint without a trailing '/': "https://acct.blob.core.windows.net", or for
  // path-style URLs "http://127.0.0.1:10000/devstoreaccount1".
  std::string endpoint;
  std::string account;
  std::string container;
  // Blob name (or directory prefix) inside the container: decoded, no leading or trailing '/',
  // empty for the container itself.
  std::string path;
  // The URL's query string without '?' (a SAS token pasted with the URL), or empty.
  std::string query;
};

// True if `url` is in one of the accepted forms (by scheme and host; the rest is checked by
// ParseAzureUrl).
bool IsAzureUrl(std::string_view url);

// Splits an accepted URL into its parts. InvalidArgument (with the query string redacted) if the
// URL has no container or is not an Azure storage URL.
Result<BlobLocation> ParseAzureUrl(std::string_view url);

// Percent-encodes everything but RFC 3986 unreserved characters, and '/' too if `keep_slash`.
std::string PercentEncode(std::string_view text, bool keep_slash);
// Decodes %XX escapes; malformed escapes are kept as they are.
std::string PercentDecode(std::string_view text);

// `url` with its query string replaced by "?<redacted>" (SAS tokens are secrets); unchanged if it
// has none.
std::string RedactUrl(std::string_view url);

}  // namespace weir::azure
