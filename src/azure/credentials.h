// Entra ID (OAuth 2) access tokens and the credentials weir authenticates to Azure with.
//
// EntraTokenRequest + TokenSource are the one Entra ID token client of weir, shared by the
// storage code (scope https://storage.azure.com/.default, below) and the Kafka source's
// OAUTHBEARER (scope https://<namespace>.servicebus.windows.net/.default, kafka/oauth.h): client
// credentials with a secret, AKS workload identity (the federated token file as a client
// assertion, read again for every token) and managed identity (IMDS, or App Service's
// IDENTITY_ENDPOINT). TokenSource caches a token, refreshes it five minutes before it expires (at
// half its lifetime for tokens shorter than ten minutes), lets concurrent callers share one
// refresh and keeps serving a still-valid token while another caller refreshes.
//
// AzureCredentials: how weir authenticates to Azure Storage, filled by the caller (the CLI reads
// the hadoop-azure settings, cli/file_systems.h) or from the environment variables of the Azure
// SDKs (FromEnvironment, FromStorageEnvironment: the environment stage of the storage chain).
//
// No key, SAS, client secret, App Service identity header, federated token or access token ever
// appears in a Status message. Token requests keep TLS verification on (HttpTransport).
// TokenSource is thread-safe; the rest are value types.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "azure/http_transport.h"
#include "base/result.h"

namespace weir::azure {

inline constexpr char kDefaultAuthorityHost[] = "https://login.microsoftonline.com";
inline constexpr char kImdsTokenEndpoint[] =
    "http://169.254.169.254/metadata/identity/oauth2/token";
// Where AKS workload identity projects the service-account token (hadoop-azure's default too).
inline constexpr char kDefaultFederatedTokenFile[] =
    "/var/run/secrets/azure/tokens/azure-identity-token";

// The storage OAuth scope: tokens for https://storage.azure.com/.
inline constexpr char kStorageScope[] = "https://storage.azure.com/.default";
inline constexpr char kStorageResource[] = "https://storage.azure.com/";

// "https://login.microsoftonline.com/" or "login.microsoftonline.us" -> "https://host" (no
// trailing '/'). http:// is accepted for loopback hosts only (tests, local proxies): the request
// carries a secret. InvalidArgument naming `source` (the setting or variable) otherwise.
Result<std::string> NormalizeAuthorityHost(std::string_view text, const std::string& source);

struct AzureCredentials;

// How one Entra ID access token is obtained.
struct EntraTokenRequest {
  enum class Kind {
    kClientSecret,      // POST token_endpoint, client-credentials grant with client_secret
    kWorkloadIdentity,  // the same grant with the federated token file as client_assertion
    kManagedIdentity,   // GET managed_identity_endpoint (IMDS or App Service)
  };
  Kind kind = Kind::kClientSecret;
  // kClientSecret, kWorkloadIdentity: <authority>/<tenant>/oauth2/v2.0/token (or any OAuth 2
  // token URL, e.g. Kafka's sasl.oauthbearer.token.endpoint.url).
  std::string token_endpoint;
  std::string scope;     // the client-credentials "scope"; omitted when empty
  std::string resource;  // kManagedIdentity: the resource asked for; empty: scope minus "/.default"
  std::string tenant_id;  // for messages
  // The application (client) id; kManagedIdentity: a user-assigned identity's client id, or empty.
  std::string client_id;
  std::string client_secret;         // secret; kClientSecret
  std::string federated_token_file;  // kWorkloadIdentity
  // kManagedIdentity: a user-assigned identity by object (principal) id or ARM resource id.
  std::string managed_identity_object_id;
  std::string managed_identity_resource_id;
  // kManagedIdentity: IMDS' token URL, or App Service's IDENTITY_ENDPOINT when identity_header is
  // set (api-version 2019-08-01, X-IDENTITY-HEADER, principal_id / mi_res_id).
  std::string managed_identity_endpoint = kImdsTokenEndpoint;
  std::string identity_header;  // secret
  // What a refusal's message tells the user to check (the caller knows its setting names).
  std::string refused_hint;

  // The managed identity resource: `resource`, else the scope without "/.default".
  std::string Resource() const;
  // For messages, secret-free: "Entra ID application app-1 in tenant t (client secret)",
  // "the managed identity (user-assigned, client id c)", ...
  std::string Describe() const;
  // The URL the request goes to, without a query string.
  std::string Endpoint() const;
};

// The HTTP request that gets a token for `request`; `*body` holds the form body the result's
// body points into. REQUIRES for kWorkloadIdentity: `federated_token` is the file's content.
HttpRequest BuildTokenHttpRequest(const EntraTokenRequest& request,
                                  std::string_view federated_token, std::string* body);

struct AccessToken {
  std::string token;  // secret
  int64_t expires_at_ms = 0;  // ms since the epoch
};

// Parses a token endpoint's answer ({"access_token":..,"expires_in":..} from Entra ID and IMDS,
// "expires_on" from App Service; expires_in may be a number or a decimal string). Errors name the
// endpoint and the credential (Describe()), the HTTP status and the service's error code and
// description, never a secret: Unavailable for what a retry may fix (408, 429, 5xx, HTTP 200
// without a token; for managed identity also 404 and 410, which IMDS answers while it updates),
// IOError for refused credentials, followed by request.refused_hint.
Result<AccessToken> ParseTokenResponse(const EntraTokenRequest& request, long http_status,
                                       std::string_view body, int64_t now_ms);

class TokenSource {
 public:
  struct Options {
    std::function<int64_t()> now_ms;  // wall clock, ms; default the system clock
    // Reads the federated token file; default: the file's content.
    std::function<Result<std::string>(const std::string&)> read_file;
    std::function<void(int64_t ms)> sleep_ms;  // between attempts; default: sleeps
    // A cached token is refreshed when less than this is left of it, or less than half of its
    // lifetime for short-lived tokens.
    int64_t refresh_margin_ms = 5 * 60 * 1000;
    // Below 1: also refreshed once this fraction of its lifetime has passed (Kafka: 0.5, so that
    // librdkafka's refresh at 80% of a lifetime gets a new token).
    double max_age_fraction = 1.0;
    // Tries of a fetch failing with Unavailable; waits retry_wait_ms, then twice that, ... The
    // storage client retries whole requests itself (1); Kafka's callback tries 3 times.
    int attempts = 1;
    int64_t retry_wait_ms = 500;
  };

  // REQUIRES: `transport` outlives this.
  TokenSource(EntraTokenRequest request, HttpTransport* transport, Options options);
  // Storage tokens for `credentials` (kind kClientSecret, kManagedIdentity or kWorkloadIdentity;
  // anything else, or incomplete credentials, make every Token() fail with InvalidArgument).
  // `now_ms` and `read_file` as in Options.
  TokenSource(const AzureCredentials& credentials, HttpTransport* transport,
              std::function<int64_t()> now_ms = nullptr,
              std::function<Result<std::string>(const std::string&)> read_file = nullptr);

  // A token that is not due for a refresh (fetched if the cached one is). When another caller is
  // already fetching, waits for its result, or returns the cached token while it is still valid
  // for at least 30 s (a quarter of its lifetime for short-lived ones). Errors as
  // ParseTokenResponse; Unavailable naming the token endpoint when no answer came; IOError when
  // the federated token file cannot be read or is empty; InvalidArgument for incomplete requests.
  Result<AccessToken> Get();
  // Get()'s token.
  Result<std::string> Token();

  const EntraTokenRequest& request() const { return request_; }

 private:
  Result<AccessToken> FetchWithRetries();
  Result<AccessToken> Fetch();
  bool DueForRefresh(int64_t now) const;  // REQUIRES: mutex_ held
  bool StillUsable(int64_t now) const;    // REQUIRES: mutex_ held

  EntraTokenRequest request_;
  Status init_status_;
  HttpTransport* const transport_;
  Options options_;
  std::mutex mutex_;
  std::condition_variable refreshed_;
  bool refreshing_ = false;         // GUARDED_BY(mutex_)
  uint64_t refreshes_ = 0;          // GUARDED_BY(mutex_): finished fetches
  Status last_failure_;             // GUARDED_BY(mutex_): of the last finished fetch
  AccessToken cached_;              // GUARDED_BY(mutex_)
  int64_t cached_at_ms_ = 0;        // GUARDED_BY(mutex_)
};

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
  std::string authority_host = kDefaultAuthorityHost;
  std::string imds_endpoint = kImdsTokenEndpoint;
  // App Service / Functions: IDENTITY_ENDPOINT and IDENTITY_HEADER (a secret). When the header is
  // set, managed identity tokens come from identity_endpoint instead of IMDS.
  std::string identity_endpoint;
  std::string identity_header;
  // Where the credentials came from, for messages ("fs.azure.account.oauth2.* settings",
  // "AZURE_* environment variables", ...); may be empty.
  std::string source;

  static AzureCredentials SharedKey(std::string account_key);
  static AzureCredentials Sas(std::string sas_token);
  static AzureCredentials ClientSecret(std::string tenant_id, std::string client_id,
                                       std::string client_secret);
  static AzureCredentials ManagedIdentity(std::string client_id = "");
  static AzureCredentials WorkloadIdentity(std::string tenant_id, std::string client_id,
                                           std::string federated_token_file);

  // True for the kinds that authenticate with Entra ID bearer tokens.
  bool UsesTokens() const {
    return kind == Kind::kClientSecret || kind == Kind::kManagedIdentity ||
           kind == Kind::kWorkloadIdentity;
  }
  // The storage token request for these credentials. InvalidArgument when a kind that
  // UsesTokens() lacks a field it needs (naming the field, never a value) or for other kinds.
  Result<EntraTokenRequest> StorageTokenRequest() const;

  // Looks up an environment variable (nullopt: unset or empty).
  using Environment = std::function<std::optional<std::string>(const std::string&)>;

  // The Azure SDKs' environment credentials, DefaultAzureCredential's order, first match wins:
  //   1. a client secret: AZURE_TENANT_ID, AZURE_CLIENT_ID, AZURE_CLIENT_SECRET;
  //   2. workload identity: AZURE_TENANT_ID, AZURE_CLIENT_ID, AZURE_FEDERATED_TOKEN_FILE;
  //   (both with AZURE_AUTHORITY_HOST)
  //   3. a managed identity, only when AZURE_TOKEN_CREDENTIALS is ManagedIdentityCredential or
  //      prod (weir cannot detect one without a network call, so it is opt-in): user-assigned
  //      when AZURE_CLIENT_ID is set, at the endpoints ApplyManagedIdentityEnvironment finds.
  // AZURE_TOKEN_CREDENTIALS naming one credential (EnvironmentCredential,
  // WorkloadIdentityCredential, ManagedIdentityCredential; case-insensitive) limits the chain to
  // it, as in the SDKs. nullopt when nothing applies. InvalidArgument for an AZURE_AUTHORITY_HOST
  // that is not https (http only to a loopback address) and for AZURE_TOKEN_CREDENTIALS values
  // weir does not support (dev and the developer tools' credentials). `environment` defaults to
  // getenv.
  static Result<std::optional<AzureCredentials>> FromEnvironment(
      const Environment& environment = nullptr);
  // The environment stage of the storage credential chain for storage account `account`: an
  // account key (AZURE_STORAGE_KEY, else AZURE_STORAGE_ACCOUNT_KEY), then a SAS
  // (AZURE_STORAGE_SAS_TOKEN) — each only when AZURE_STORAGE_ACCOUNT is unset or names `account`
  // — then FromEnvironment().
  static Result<std::optional<AzureCredentials>> FromStorageEnvironment(
      const std::string& account, const Environment& environment = nullptr);
  // Points a managed identity at the endpoints the environment names: App Service's
  // IDENTITY_ENDPOINT + IDENTITY_HEADER, else IMDS on AZURE_POD_IDENTITY_AUTHORITY_HOST (the Azure
  // SDKs' override of http://169.254.169.254). `environment` defaults to getenv.
  void ApplyManagedIdentityEnvironment(const Environment& environment = nullptr);
};

}  // namespace weir::azure
