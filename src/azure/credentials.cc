#include "azure/credentials.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <vector>

#include "azure/azure_url.h"
#include "base/text.h"

namespace weir::azure {
namespace {

constexpr std::string_view kDefaultSuffix = "/.default";
constexpr char kJwtBearer[] = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

int64_t SystemNowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void SleepMs(int64_t ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

// A JSON number or a decimal string (IMDS and App Service send strings); -1 otherwise.
int64_t ReadSeconds(const nlohmann::json& value) {
  if (value.is_number_integer()) return value.get<int64_t>();
  if (value.is_number()) return static_cast<int64_t>(value.get<double>());
  if (value.is_string()) {
    const std::string& s = value.get_ref<const std::string&>();
    if (s.empty() || s.size() > 18 || s.find_first_not_of("0123456789") != std::string::npos) {
      return -1;
    }
    return std::atoll(s.c_str());
  }
  return -1;
}

std::optional<std::string> GetEnvironment(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

Result<std::string> ReadTokenFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Status::IOError("cannot read the federated token file " + path + ": " +
                           std::strerror(errno));
  }
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

std::string Trim(std::string_view text) {
  size_t b = 0;
  size_t e = text.size();
  while (b < e && std::isspace(static_cast<unsigned char>(text[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(text[e - 1]))) --e;
  return std::string(text.substr(b, e - b));
}

bool IsLoopbackHost(std::string_view host) {
  return host == "localhost" || host == "[::1]" || host == "::1" || host.starts_with("127.");
}

// `text` with every value of `secrets` (4 bytes or longer) replaced by "***".
std::string Scrub(std::string text, const std::vector<std::string_view>& secrets) {
  for (std::string_view secret : secrets) {
    if (secret.size() < 4) continue;
    size_t pos = 0;
    while ((pos = text.find(secret, pos)) != std::string::npos) {
      text.replace(pos, secret.size(), "***");
      pos += 3;
    }
  }
  return text;
}

bool IsManaged(const EntraTokenRequest& r) {
  return r.kind == EntraTokenRequest::Kind::kManagedIdentity;
}

// The last part of the messages for refused credentials.
std::string RefusedHint(const EntraTokenRequest& r) {
  if (!r.refused_hint.empty()) return r.refused_hint;
  switch (r.kind) {
    case EntraTokenRequest::Kind::kClientSecret:
      return "check the tenant id, client id and client secret";
    case EntraTokenRequest::Kind::kWorkloadIdentity:
      return "check that the application's federated credential names this service account "
             "(issuer and subject) and that the token file is the pod's projected token";
    case EntraTokenRequest::Kind::kManagedIdentity:
      return "check that the identity is assigned to this machine";
  }
  return "";
}

}  // namespace

Result<std::string> NormalizeAuthorityHost(std::string_view text, const std::string& source) {
  std::string host = Trim(text);
  while (!host.empty() && host.back() == '/') host.pop_back();
  if (host.find("://") == std::string::npos) host = "https://" + host;
  std::string scheme = AsciiLower(host.substr(0, host.find("://")));
  std::string rest = host.substr(host.find("://") + 3);
  std::string name = AsciiLower(rest.substr(0, rest.find_first_of(":/")));
  if (rest.find('/') != std::string::npos || name.empty()) {
    return Status::InvalidArgument(source + " must be an authority host such as "
                                   "https://login.microsoftonline.com, got '" + std::string(text) +
                                   "'");
  }
  if (scheme != "https" && !(scheme == "http" && IsLoopbackHost(name))) {
    return Status::InvalidArgument(source + " must use https:// (http:// only to a loopback "
                                   "address), got '" + std::string(text) + "'");
  }
  return host;
}

// ---------------------------------------------------------------------------------------------
// EntraTokenRequest

std::string EntraTokenRequest::Resource() const {
  if (!resource.empty()) return resource;
  return scope.ends_with(kDefaultSuffix) ? scope.substr(0, scope.size() - kDefaultSuffix.size())
                                         : scope;
}

std::string EntraTokenRequest::Describe() const {
  switch (kind) {
    case Kind::kClientSecret:
      return "Entra ID application " + client_id +
             (tenant_id.empty() ? "" : " in tenant " + tenant_id) + " (client secret)";
    case Kind::kWorkloadIdentity:
      return "Entra ID application " + client_id + " in tenant " + tenant_id +
             " (workload identity)";
    case Kind::kManagedIdentity: {
      std::string which = !client_id.empty() ? "user-assigned, client id " + client_id
                          : !managed_identity_object_id.empty()
                              ? "user-assigned, object id " + managed_identity_object_id
                          : !managed_identity_resource_id.empty()
                              ? "user-assigned, resource id " + managed_identity_resource_id
                              : "system-assigned";
      return "the managed identity (" + which + ")";
    }
  }
  return "Entra ID credentials";
}

std::string EntraTokenRequest::Endpoint() const {
  const std::string& url = IsManaged(*this) ? managed_identity_endpoint : token_endpoint;
  return url.substr(0, url.find('?'));
}

HttpRequest BuildTokenHttpRequest(const EntraTokenRequest& r, std::string_view federated_token,
                                  std::string* body) {
  HttpRequest request;
  body->clear();
  if (!IsManaged(r)) {
    request.method = "POST";
    request.url = r.token_endpoint;
    request.headers.emplace_back("Content-Type", "application/x-www-form-urlencoded");
    *body = "grant_type=client_credentials&client_id=" + PercentEncode(r.client_id, false);
    if (r.kind == EntraTokenRequest::Kind::kWorkloadIdentity) {
      *body += "&client_assertion_type=" + PercentEncode(kJwtBearer, false) +
               "&client_assertion=" + PercentEncode(federated_token, false);
    } else {
      *body += "&client_secret=" + PercentEncode(r.client_secret, false);
    }
    if (!r.scope.empty()) *body += "&scope=" + PercentEncode(r.scope, false);
    request.body = *body;
    return request;
  }
  request.method = "GET";
  const bool app_service = !r.identity_header.empty();
  // IMDS and App Service name the user-assigned selectors differently.
  request.url = r.managed_identity_endpoint +
                (r.managed_identity_endpoint.find('?') == std::string::npos ? "?" : "&") +
                "api-version=" + (app_service ? "2019-08-01" : "2018-02-01") +
                "&resource=" + PercentEncode(r.Resource(), false);
  if (!r.client_id.empty()) request.url += "&client_id=" + PercentEncode(r.client_id, false);
  if (!r.managed_identity_object_id.empty()) {
    request.url += (app_service ? "&principal_id=" : "&object_id=") +
                   PercentEncode(r.managed_identity_object_id, false);
  }
  if (!r.managed_identity_resource_id.empty()) {
    request.url += (app_service ? "&mi_res_id=" : "&msi_res_id=") +
                   PercentEncode(r.managed_identity_resource_id, false);
  }
  if (app_service) {
    request.headers.emplace_back("X-IDENTITY-HEADER", r.identity_header);
  } else {
    request.headers.emplace_back("Metadata", "true");
  }
  return request;
}

Result<AccessToken> ParseTokenResponse(const EntraTokenRequest& r, long http_status,
                                       std::string_view body, int64_t now_ms) {
  nlohmann::json json =
      nlohmann::json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  const std::vector<std::string_view> secrets = {r.client_secret, r.identity_header};
  if (http_status != 200) {
    std::string error;
    std::string description;
    if (!json.is_discarded() && json.is_object()) {
      if (json.contains("error") && json["error"].is_string()) {
        error = json["error"].get<std::string>();
      }
      for (const char* field : {"error_description", "message"}) {
        if (json.contains(field) && json[field].is_string()) {
          description = json[field].get<std::string>();
          break;
        }
      }
    }
    const bool transient = http_status >= 500 || http_status == 429 || http_status == 408 ||
                           (IsManaged(r) && (http_status == 404 || http_status == 410));
    std::string message = "the token endpoint " + r.Endpoint() + " refused " + r.Describe() +
                          ": HTTP " + std::to_string(http_status) +
                          (error.empty() ? "" : " " + error) +
                          (description.empty() ? "" : ": " + description);
    message += transient ? "; the identity service is busy or updating, weir tries again"
                         : "; " + RefusedHint(r);
    message = Scrub(std::move(message), secrets);
    if (transient) return Status::Unavailable(message);
    return Status::IOError(message);
  }
  if (json.is_discarded() || !json.is_object() || !json.contains("access_token") ||
      !json["access_token"].is_string() ||
      json["access_token"].get_ref<const std::string&>().empty()) {
    return Status::Unavailable("the token endpoint " + r.Endpoint() +
                               " answered HTTP 200 without an access_token for " + r.Describe());
  }
  AccessToken token;
  token.token = json["access_token"].get<std::string>();
  const int64_t expires_in = json.contains("expires_in") ? ReadSeconds(json["expires_in"]) : -1;
  const int64_t expires_on = json.contains("expires_on") ? ReadSeconds(json["expires_on"]) : -1;
  if (expires_in > 0) {
    token.expires_at_ms = now_ms + expires_in * 1000;
  } else if (expires_on > 0) {  // App Service: seconds since the epoch
    token.expires_at_ms = expires_on * 1000;
  } else {
    token.expires_at_ms = now_ms + 3600 * 1000;
  }
  return token;
}

// ---------------------------------------------------------------------------------------------
// TokenSource

TokenSource::TokenSource(EntraTokenRequest request, HttpTransport* transport, Options options)
    : request_(std::move(request)), transport_(transport), options_(std::move(options)) {
  if (!options_.now_ms) options_.now_ms = SystemNowMs;
  if (!options_.read_file) options_.read_file = ReadTokenFile;
  if (!options_.sleep_ms) options_.sleep_ms = SleepMs;
  options_.attempts = std::max(options_.attempts, 1);
}

TokenSource::TokenSource(const AzureCredentials& credentials, HttpTransport* transport,
                         std::function<int64_t()> now_ms,
                         std::function<Result<std::string>(const std::string&)> read_file)
    : TokenSource(EntraTokenRequest(), transport, [&] {
        Options options;
        options.now_ms = std::move(now_ms);
        options.read_file = std::move(read_file);
        return options;
      }()) {
  auto request = credentials.StorageTokenRequest();
  if (request.ok()) {
    request_ = std::move(*request);
  } else {
    init_status_ = request.status();
  }
}

bool TokenSource::DueForRefresh(int64_t now) const {
  if (cached_.token.empty()) return true;
  const int64_t lifetime = cached_.expires_at_ms - cached_at_ms_;
  const int64_t margin = std::min(options_.refresh_margin_ms, lifetime / 2);
  if (cached_.expires_at_ms - now <= margin) return true;
  if (options_.max_age_fraction < 1.0 &&
      static_cast<double>(now - cached_at_ms_) >= options_.max_age_fraction * lifetime) {
    return true;
  }
  return false;
}

bool TokenSource::StillUsable(int64_t now) const {
  if (cached_.token.empty()) return false;
  const int64_t lifetime = cached_.expires_at_ms - cached_at_ms_;
  return cached_.expires_at_ms - now > std::min<int64_t>(30 * 1000, lifetime / 4);
}

Result<AccessToken> TokenSource::Get() {
  if (!init_status_.ok()) return init_status_;
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    const int64_t now = options_.now_ms();
    if (!DueForRefresh(now)) return cached_;
    if (!refreshing_) break;
    // Another caller is fetching: its token (or failure) is ours too.
    if (StillUsable(now)) return cached_;
    const uint64_t seen = refreshes_;
    refreshed_.wait(lock, [&] { return refreshes_ != seen; });
    if (!last_failure_.ok()) return last_failure_;
    if (!cached_.token.empty()) return cached_;
  }
  refreshing_ = true;
  const int64_t started = options_.now_ms();
  lock.unlock();
  Result<AccessToken> token = FetchWithRetries();
  lock.lock();
  refreshing_ = false;
  ++refreshes_;
  if (token.ok()) {
    cached_ = *token;
    cached_at_ms_ = started;
    last_failure_ = Status::OK();
  } else {
    last_failure_ = token.status();
  }
  refreshed_.notify_all();
  return token;
}

Result<std::string> TokenSource::Token() {
  WEIR_ASSIGN_OR_RETURN(AccessToken token, Get());
  return std::move(token.token);
}

Result<AccessToken> TokenSource::FetchWithRetries() {
  Result<AccessToken> token = Fetch();
  int64_t wait = options_.retry_wait_ms;
  for (int attempt = 1;
       attempt < options_.attempts && !token.ok() && token.status().IsUnavailable(); ++attempt) {
    options_.sleep_ms(wait);
    wait *= 2;
    token = Fetch();
  }
  return token;
}

Result<AccessToken> TokenSource::Fetch() {
  const EntraTokenRequest& r = request_;
  const std::string who = r.Describe();
  switch (r.kind) {
    case EntraTokenRequest::Kind::kClientSecret:
      if (r.token_endpoint.empty() || r.client_id.empty() || r.client_secret.empty()) {
        return Status::InvalidArgument("no Entra ID token for " + who +
                                       ": a token endpoint, client id and client secret are all "
                                       "required");
      }
      break;
    case EntraTokenRequest::Kind::kWorkloadIdentity:
      if (r.token_endpoint.empty() || r.client_id.empty() || r.federated_token_file.empty()) {
        return Status::InvalidArgument("no Entra ID token for " + who +
                                       ": a token endpoint, client id and federated token file "
                                       "are all required");
      }
      break;
    case EntraTokenRequest::Kind::kManagedIdentity:
      if (!r.client_id.empty() + !r.managed_identity_object_id.empty() +
              !r.managed_identity_resource_id.empty() > 1) {
        return Status::InvalidArgument("no Entra ID token for " + who +
                                       ": name a user-assigned identity by one of client id, "
                                       "object id or resource id");
      }
      if (r.managed_identity_endpoint.empty()) {
        return Status::InvalidArgument("no Entra ID token for " + who +
                                       ": no managed identity endpoint");
      }
      break;
  }
  std::string assertion;
  if (r.kind == EntraTokenRequest::Kind::kWorkloadIdentity) {
    auto content = options_.read_file(r.federated_token_file);
    if (!content.ok()) {
      return Status::IOError("no Entra ID token for " + who + ": " + content.status().message());
    }
    assertion = Trim(*content);
    if (assertion.empty()) {
      return Status::IOError("no Entra ID token for " + who + ": the federated token file " +
                             r.federated_token_file + " is empty");
    }
  }
  std::string body;
  HttpRequest request = BuildTokenHttpRequest(r, assertion, &body);
  const int64_t now = options_.now_ms();
  auto response = transport_->Send(request);
  const std::vector<std::string_view> secrets = {r.client_secret, r.identity_header, assertion};
  if (!response.ok()) {
    return Status::Unavailable(
        Scrub("no Entra ID token for " + who + ": the token endpoint " + r.Endpoint() +
                  " did not answer: " + response.status().message(),
              secrets));
  }
  auto token = ParseTokenResponse(r, response->status, response->body, now);
  if (!token.ok()) return Status(token.status().code(), Scrub(token.status().message(), secrets));
  return token;
}

// ---------------------------------------------------------------------------------------------
// AzureCredentials

AzureCredentials AzureCredentials::SharedKey(std::string account_key) {
  AzureCredentials c;
  c.kind = Kind::kSharedKey;
  c.account_key = std::move(account_key);
  return c;
}

AzureCredentials AzureCredentials::Sas(std::string sas_token) {
  AzureCredentials c;
  c.kind = Kind::kSas;
  c.sas_token = std::move(sas_token);
  return c;
}

AzureCredentials AzureCredentials::ClientSecret(std::string tenant_id, std::string client_id,
                                                std::string client_secret) {
  AzureCredentials c;
  c.kind = Kind::kClientSecret;
  c.tenant_id = std::move(tenant_id);
  c.client_id = std::move(client_id);
  c.client_secret = std::move(client_secret);
  return c;
}

AzureCredentials AzureCredentials::ManagedIdentity(std::string client_id) {
  AzureCredentials c;
  c.kind = Kind::kManagedIdentity;
  c.managed_identity_client_id = std::move(client_id);
  return c;
}

AzureCredentials AzureCredentials::WorkloadIdentity(std::string tenant_id, std::string client_id,
                                                    std::string federated_token_file) {
  AzureCredentials c;
  c.kind = Kind::kWorkloadIdentity;
  c.tenant_id = std::move(tenant_id);
  c.client_id = std::move(client_id);
  c.federated_token_file = std::move(federated_token_file);
  return c;
}

Result<EntraTokenRequest> AzureCredentials::StorageTokenRequest() const {
  EntraTokenRequest r;
  r.scope = kStorageScope;
  r.resource = kStorageResource;
  const std::string from = source.empty() ? "" : " (from " + source + ")";
  auto missing = [&](const std::string& what) {
    return Status::InvalidArgument("Entra ID authentication to storage" + from + " needs " + what);
  };
  switch (kind) {
    case Kind::kClientSecret:
    case Kind::kWorkloadIdentity: {
      const bool secret = kind == Kind::kClientSecret;
      r.kind = secret ? EntraTokenRequest::Kind::kClientSecret
                      : EntraTokenRequest::Kind::kWorkloadIdentity;
      if (tenant_id.empty() || client_id.empty() ||
          (secret ? client_secret.empty() : federated_token_file.empty())) {
        return missing(secret ? "a tenant id, client id and client secret"
                              : "a tenant id, client id and federated token file");
      }
      r.tenant_id = tenant_id;
      r.client_id = client_id;
      r.client_secret = client_secret;
      r.federated_token_file = federated_token_file;
      std::string authority = authority_host;
      while (!authority.empty() && authority.back() == '/') authority.pop_back();
      r.token_endpoint = authority + "/" + PercentEncode(tenant_id, false) + "/oauth2/v2.0/token";
      r.refused_hint =
          secret ? "check the tenant id, client id and client secret" + from
                 : "check that the application's federated credential names this service "
                   "account (issuer and subject) and that the token file is the pod's projected "
                   "token" + from;
      return r;
    }
    case Kind::kManagedIdentity:
      r.kind = EntraTokenRequest::Kind::kManagedIdentity;
      r.client_id = managed_identity_client_id;
      r.managed_identity_object_id = managed_identity_object_id;
      r.managed_identity_resource_id = managed_identity_resource_id;
      if (!identity_header.empty()) {
        r.managed_identity_endpoint = identity_endpoint;
        r.identity_header = identity_header;
      } else {
        r.managed_identity_endpoint = imds_endpoint;
      }
      r.refused_hint = "check that the identity is assigned to this machine (a user-assigned one "
                       "is chosen by its client id, object id or resource id)" + from;
      return r;
    case Kind::kAnonymous:
    case Kind::kSharedKey:
    case Kind::kSas:
      break;
  }
  return Status::InvalidArgument("these storage credentials do not use Entra ID tokens");
}

Result<std::optional<AzureCredentials>> AzureCredentials::FromEnvironment(
    const Environment& environment) {
  const Environment env = environment ? environment : Environment(GetEnvironment);
  // AZURE_TOKEN_CREDENTIALS: which of the SDKs' production credentials may be used.
  bool use_secret = true;
  bool use_workload = true;
  bool use_managed = false;
  if (auto chosen = env("AZURE_TOKEN_CREDENTIALS")) {
    const std::string value = AsciiLower(Trim(*chosen));
    if (value == "prod") {
      use_managed = true;
    } else if (value == "environmentcredential") {
      use_workload = false;
    } else if (value == "workloadidentitycredential") {
      use_secret = false;
    } else if (value == "managedidentitycredential") {
      use_secret = use_workload = false;
      use_managed = true;
    } else {
      return Status::InvalidArgument(
          "AZURE_TOKEN_CREDENTIALS='" + *chosen +
          "' is not supported: weir uses prod, EnvironmentCredential, WorkloadIdentityCredential "
          "or ManagedIdentityCredential (it has no developer credentials such as the Azure CLI's)");
    }
  }
  auto tenant = env("AZURE_TENANT_ID");
  auto client_id = env("AZURE_CLIENT_ID");
  std::optional<AzureCredentials> out;
  if (tenant && client_id) {
    if (auto secret = env("AZURE_CLIENT_SECRET"); secret && use_secret) {
      out = ClientSecret(*tenant, *client_id, *secret);
      out->source = "AZURE_TENANT_ID, AZURE_CLIENT_ID and AZURE_CLIENT_SECRET";
    } else if (auto file = env("AZURE_FEDERATED_TOKEN_FILE"); file && use_workload) {
      out = WorkloadIdentity(*tenant, *client_id, *file);
      out->source = "AZURE_TENANT_ID, AZURE_CLIENT_ID and AZURE_FEDERATED_TOKEN_FILE";
    }
  }
  if (out) {
    if (auto authority = env("AZURE_AUTHORITY_HOST")) {
      WEIR_ASSIGN_OR_RETURN(out->authority_host,
                            NormalizeAuthorityHost(*authority, "AZURE_AUTHORITY_HOST"));
    }
    return out;
  }
  if (use_managed) {
    out = ManagedIdentity(client_id.value_or(""));
    out->source = "AZURE_TOKEN_CREDENTIALS";
    out->ApplyManagedIdentityEnvironment(env);
    return out;
  }
  return std::optional<AzureCredentials>();
}

Result<std::optional<AzureCredentials>> AzureCredentials::FromStorageEnvironment(
    const std::string& account, const Environment& environment) {
  const Environment env = environment ? environment : Environment(GetEnvironment);
  auto named = env("AZURE_STORAGE_ACCOUNT");
  const bool same_account = !named || *named == account;
  if (same_account) {
    auto key = env("AZURE_STORAGE_KEY");
    const char* key_name = "AZURE_STORAGE_KEY";
    if (!key) {
      key = env("AZURE_STORAGE_ACCOUNT_KEY");
      key_name = "AZURE_STORAGE_ACCOUNT_KEY";
    }
    if (key) {
      AzureCredentials c = SharedKey(*key);
      c.source = key_name;
      return std::optional<AzureCredentials>(std::move(c));
    }
    if (auto sas = env("AZURE_STORAGE_SAS_TOKEN")) {
      AzureCredentials c = Sas(*sas);
      c.source = "AZURE_STORAGE_SAS_TOKEN";
      return std::optional<AzureCredentials>(std::move(c));
    }
  }
  return FromEnvironment(env);
}

void AzureCredentials::ApplyManagedIdentityEnvironment(const Environment& environment) {
  const Environment env = environment ? environment : Environment(GetEnvironment);
  auto endpoint = env("IDENTITY_ENDPOINT");
  auto header = env("IDENTITY_HEADER");
  if (endpoint && header) {
    identity_endpoint = *endpoint;
    identity_header = *header;
    return;
  }
  if (auto host = env("AZURE_POD_IDENTITY_AUTHORITY_HOST")) {
    std::string trimmed = Trim(*host);
    while (!trimmed.empty() && trimmed.back() == '/') trimmed.pop_back();
    imds_endpoint = trimmed + "/metadata/identity/oauth2/token";
  }
}

}  // namespace weir::azure
