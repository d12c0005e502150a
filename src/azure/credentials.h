// AzureCredentials: how weir authenticates to Azure Storage, filled by the caller (the CLI resolves
// secret(...) references); and TokenSource, which gets Entra ID (OAuth 2) bearer tokens for the
// storage scope by client credentials or from the managed identity endpoint (IMDS), caches them
// and refreshes them five minutes before they expire. No key, SAS, secret or token ever appears in
// a Status message. TokenSource is thread-safe; concurrent callers share one refresh.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

#include "azure/http_transport.h"
#include "base/result.h"

namespace weir::azure {

struct AzureCredentials {
  enum class Kind {
    kAnonymous,        // public containers only
    kSharedKey,        // account_key
    kSas,              // sas_token
    kClientSecret,     // tenant_id, client_id, client_secret (a service principal)
    kManagedIdentity,  // the VM's / pod's identity; managed_identity_client_id picks a
                       // user-assigned one
  };
  Kind kind = Kind::kAnonymous;
  std::string account_key;  // base64, as shown in the portal
  std::string sas_token;    // "sv=...&sig=..." (a leading '?' is ignored)
  std::string tenant_id;
  std::string client_id;
  std::string client_secret;
  std::string managed_identity_client_id;
  // Endpoints, replaceable for tests against a local fake.
  std::string authority_host = "https://login.microsoftonline.com";
  std::string imds_endpoint = "http://169.254.169.254/metadata/identity/oauth2/token";

  static AzureCredentials SharedKey(std::string account_key);
  static AzureCredentials Sas(std::string sas_token);
  static AzureCredentials ClientSecret(std::string tenant_id, std::string client_id,
                                       std::string client_secret);
  static AzureCredentials ManagedIdentity(std::string client_id = "");
};

// The storage OAuth scope: tokens for https://storage.azure.com/.
inline constexpr char kStorageScope[] = "https://storage.azure.com/.default";
inline constexpr char kStorageResource[] = "https://storage.azure.com/";

class TokenSource {
 public:
  // REQUIRES: credentials.kind is kClientSecret or kManagedIdentity; `transport` outlives this.
  // `now_ms` returns the wall clock in milliseconds (replaceable in tests).
  TokenSource(AzureCredentials credentials, HttpTransport* transport,
              std::function<int64_t()> now_ms = nullptr);

  // A bearer token valid for at least five more minutes (fetched if the cached one is not).
  // Unavailable on network faults and 429/5xx (retryable), IOError otherwise, naming the tenant
  // and client id, the HTTP status and the OAuth error code.
  Result<std::string> Token();

 private:
  Status Refresh();

  const AzureCredentials credentials_;
  HttpTransport* const transport_;
  const std::function<int64_t()> now_ms_;
  std::mutex mutex_;
  std::string token_;         // GUARDED_BY(mutex_)
  int64_t expires_at_ms_ = 0;  // GUARDED_BY(mutex_)
};

}  // namespace weir::azure
