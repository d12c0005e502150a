// AzureCredentials: how weir authenticates to Azure Storage, filled by the caller (the CLI resolves
// secret(...) references) or from the Azure SDKs' environment variables (FromEnvironment); and
// TokenSource, which gets Entra ID (OAuth 2) bearer tokens for the storage scope by client
// credentials, by AKS workload identity (the federated token file as a client assertion, read again
// for every token) or from the managed identity endpoint (IMDS, or App Service's
// IDENTITY_ENDPOINT), caches them and refreshes them five minutes before they expire. The Kafka
// source's Entra ID options (kafka/options.h) follow the same rules. No key, SAS, secret or token
// ever appears in a Status message. TokenSource is thread-safe; concurrent callers share one
// refresh.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
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
    kManagedIdentity,  // the VM's / pod's identity; managed_identity_client_id (or _object_id,
                       // _resource_id) picks a user-assigned one
    kWorkloadIdentity,  // AKS workload identity: tenant_id, client_id, federated_token_file
  };
  Kind kind = Kind::kAnonymous;
  std::string account_key;  // base64, as shown in the portal
  std::string sas_token;    // "sv=...&sig=..." (a leading '?' is ignored)
  std::string tenant_id;
  std::string client_id;
  std::string client_secret;
  std::string managed_identity_client_id;
  std::string managed_identity_object_id;
  std::string managed_identity_resource_id;
  std::string federated_token_file;  // kWorkloadIdentity; read again for every token
  // Endpoints, replaceable for tests against a local fake.
  std::string authority_host = "https://login.microsoftonline.com";
  std::string imds_endpoint = "http://169.254.169.254/metadata/identity/oauth2/token";
  // App Service / Functions: IDENTITY_ENDPOINT and IDENTITY_HEADER (a secret). When the header is
  // set, managed identity tokens come from identity_endpoint instead of IMDS.
  std::string identity_endpoint;
  std::string identity_header;

  static AzureCredentials SharedKey(std::string account_key);
  static AzureCredentials Sas(std::string sas_token);
  static AzureCredentials ClientSecret(std::string tenant_id, std::string client_id,
                                       std::string client_secret);
  static AzureCredentials ManagedIdentity(std::string client_id = "");
  static AzureCredentials WorkloadIdentity(std::string tenant_id, std::string client_id,
                                           std::string federated_token_file);

  // Looks up an environment variable (nullopt: unset or empty).
  using Environment = std::function<std::optional<std::string>(const std::string&)>;
  // The chain of the Azure SDKs' environment credentials, first match wins: a client secret
  // (AZURE_TENANT_ID, AZURE_CLIENT_ID, AZURE_CLIENT_SECRET), then workload identity (AZURE_TENANT_ID,
  // AZURE_CLIENT_ID, AZURE_FEDERATED_TOKEN_FILE), each with AZURE_AUTHORITY_HOST; nullopt when
  // neither is configured (a managed identity is used only when asked for: it cannot be detected
  // without a network call). `environment` defaults to getenv.
  static std::optional<AzureCredentials> FromEnvironment(const Environment& environment = nullptr);
  // Points a managed identity at the endpoints the environment names: App Service's
  // IDENTITY_ENDPOINT + IDENTITY_HEADER, else IMDS on AZURE_POD_IDENTITY_AUTHORITY_HOST (the Azure
  // SDKs' override of http://169.254.169.254). `environment` defaults to getenv.
  void ApplyManagedIdentityEnvironment(const Environment& environment = nullptr);
};

// The storage OAuth scope: tokens for https://storage.azure.com/.
inline constexpr char kStorageScope[] = "https://storage.azure.com/.default";
inline constexpr char kStorageResource[] = "https://storage.azure.com/";

class TokenSource {
 public:
  // REQUIRES: credentials.kind is kClientSecret, kManagedIdentity or kWorkloadIdentity;
  // `transport` outlives this. `now_ms` returns the wall clock in milliseconds and `read_file`
  // reads the federated token file (both replaceable in tests).
  TokenSource(AzureCredentials credentials, HttpTransport* transport,
              std::function<int64_t()> now_ms = nullptr,
              std::function<Result<std::string>(const std::string&)> read_file = nullptr);

  // A bearer token valid for at least five more minutes (fetched if the cached one is not).
  // Unavailable on network faults and 429/5xx (retryable), IOError otherwise, naming the tenant
  // and client id, the HTTP status and the OAuth error code.
  Result<std::string> Token();

 private:
  Status Refresh();

  const AzureCredentials credentials_;
  HttpTransport* const transport_;
  const std::function<int64_t()> now_ms_;
  const std::function<Result<std::string>(const std::string&)> read_file_;
  std::mutex mutex_;
  std::string token_;         // GUARDED_BY(mutex_)
  int64_t expires_at_ms_ = 0;  // GUARDED_BY(mutex_)
};

}  // namespace weir::azure
