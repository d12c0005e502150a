#include "azure/credentials.h"

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "azure/azure_url.h"

namespace weir::azure {
namespace {

constexpr int64_t kRefreshMarginMs = 5 * 60 * 1000;

int64_t SystemNowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// expires_in is a number from Entra ID and a string from IMDS.
int64_t ReadSeconds(const nlohmann::json& value) {
  if (value.is_number_integer()) return value.get<int64_t>();
  if (value.is_string()) {
    try {
      return std::stoll(value.get<std::string>());
    } catch (...) {
      return -1;
    }
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
    return Status::IOError("cannot read the federated token file " + path +
                           " (AZURE_FEDERATED_TOKEN_FILE)");
  }
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

std::string TrimmedHost(std::string host) {
  while (!host.empty() && host.back() == '/') host.pop_back();
  return host;
}

}  // namespace

AzureCredentials AzureCredentials::WorkloadIdentity(std::string tenant_id, std::string client_id,
                                                    std::string federated_token_file) {
  AzureCredentials c;
  c.kind = Kind::kWorkloadIdentity;
  c.tenant_id = std::move(tenant_id);
  c.client_id = std::move(client_id);
  c.federated_token_file = std::move(federated_token_file);
  return c;
}

std::optional<AzureCredentials> AzureCredentials::FromEnvironment(const Environment& environment) {
  const Environment env = environment ? environment : Environment(GetEnvironment);
  auto tenant = env("AZURE_TENANT_ID");
  auto client_id = env("AZURE_CLIENT_ID");
  if (!tenant || !client_id) return std::nullopt;
  std::optional<AzureCredentials> out;
  if (auto secret = env("AZURE_CLIENT_SECRET")) {
    out = ClientSecret(*tenant, *client_id, *secret);
  } else if (auto file = env("AZURE_FEDERATED_TOKEN_FILE")) {
    out = WorkloadIdentity(*tenant, *client_id, *file);
  } else {
    return std::nullopt;
  }
  if (auto authority = env("AZURE_AUTHORITY_HOST")) {
    out->authority_host = TrimmedHost(*authority);
    if (out->authority_host.find("://") == std::string::npos) {
      out->authority_host = "https://" + out->authority_host;
    }
  }
  return out;
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
    imds_endpoint = TrimmedHost(*host) + "/metadata/identity/oauth2/token";
  }
}

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

TokenSource::TokenSource(AzureCredentials credentials, HttpTransport* transport,
                         std::function<int64_t()> now_ms,
                         std::function<Result<std::string>(const std::string&)> read_file)
    : credentials_(std::move(credentials)),
      transport_(transport),
      now_ms_(now_ms ? std::move(now_ms) : std::function<int64_t()>(SystemNowMs)),
      read_file_(read_file ? std::move(read_file)
                           : std::function<Result<std::string>(const std::string&)>(ReadTokenFile)) {}

Result<std::string> TokenSource::Token() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (token_.empty() || now_ms_() + kRefreshMarginMs >= expires_at_ms_) {
    WEIR_RETURN_NOT_OK(Refresh());
  }
  return token_;
}

Status TokenSource::Refresh() {
  HttpRequest request;
  std::string body;
  std::string who;
  if (credentials_.kind == AzureCredentials::Kind::kClientSecret) {
    who = "Entra ID token request for client " + credentials_.client_id + " in tenant " +
          credentials_.tenant_id;
    if (credentials_.tenant_id.empty() || credentials_.client_id.empty() ||
        credentials_.client_secret.empty()) {
      return Status::InvalidArgument(who + ": tenant id, client id and client secret are all "
                                           "required");
    }
    request.method = "POST";
    request.url = credentials_.authority_host + "/" +
                  PercentEncode(credentials_.tenant_id, false) + "/oauth2/v2.0/token";
    body = "grant_type=client_credentials&client_id=" +
           PercentEncode(credentials_.client_id, false) +
           "&client_secret=" + PercentEncode(credentials_.client_secret, false) +
           "&scope=" + PercentEncode(kStorageScope, false);
    request.body = body;
    request.headers.emplace_back("Content-Type", "application/x-www-form-urlencoded");
  } else if (credentials_.kind == AzureCredentials::Kind::kWorkloadIdentity) {
    who = "Entra ID token request for client " + credentials_.client_id + " in tenant " +
          credentials_.tenant_id + " (workload identity)";
    if (credentials_.tenant_id.empty() || credentials_.client_id.empty() ||
        credentials_.federated_token_file.empty()) {
      return Status::InvalidArgument(who + ": tenant id, client id and federated token file are "
                                           "all required");
    }
    WEIR_ASSIGN_OR_RETURN(std::string assertion, read_file_(credentials_.federated_token_file));
    while (!assertion.empty() && std::isspace(static_cast<unsigned char>(assertion.back()))) {
      assertion.pop_back();
    }
    if (assertion.empty()) {
      return Status::IOError(who + ": the federated token file " +
                             credentials_.federated_token_file + " is empty");
    }
    request.method = "POST";
    request.url = credentials_.authority_host + "/" +
                  PercentEncode(credentials_.tenant_id, false) + "/oauth2/v2.0/token";
    body = "grant_type=client_credentials&client_id=" +
           PercentEncode(credentials_.client_id, false) +
           "&client_assertion_type=" +
           PercentEncode("urn:ietf:params:oauth:client-assertion-type:jwt-bearer", false) +
           "&client_assertion=" + PercentEncode(assertion, false) +
           "&scope=" + PercentEncode(kStorageScope, false);
    request.body = body;
    request.headers.emplace_back("Content-Type", "application/x-www-form-urlencoded");
  } else if (credentials_.kind == AzureCredentials::Kind::kManagedIdentity) {
    const bool app_service = !credentials_.identity_header.empty();
    who = "managed identity token request";
    const std::string& client = credentials_.managed_identity_client_id;
    const std::string& object = credentials_.managed_identity_object_id;
    const std::string& resource = credentials_.managed_identity_resource_id;
    if (!client.empty()) who += " for client " + client;
    if (!object.empty()) who += " for object " + object;
    if (!resource.empty()) who += " for identity " + resource;
    if (!client.empty() + !object.empty() + !resource.empty() > 1) {
      return Status::InvalidArgument(who + ": name a user-assigned identity by one of client id, "
                                           "object id or resource id");
    }
    request.method = "GET";
    // IMDS and App Service name the user-assigned selectors differently.
    request.url = (app_service ? credentials_.identity_endpoint : credentials_.imds_endpoint) +
                  (app_service ? "?api-version=2019-08-01" : "?api-version=2018-02-01") +
                  "&resource=" + PercentEncode(kStorageResource, false);
    if (!client.empty()) request.url += "&client_id=" + PercentEncode(client, false);
    if (!object.empty()) {
      request.url += (app_service ? "&principal_id=" : "&object_id=") + PercentEncode(object, false);
    }
    if (!resource.empty()) {
      request.url += (app_service ? "&mi_res_id=" : "&msi_res_id=") + PercentEncode(resource, false);
    }
    if (app_service) {
      request.headers.emplace_back("X-IDENTITY-HEADER", credentials_.identity_header);
    } else {
      request.headers.emplace_back("Metadata", "true");
    }
  } else {
    return Status::Internal("TokenSource used with credentials that are not Entra ID ones");
  }

  WEIR_ASSIGN_OR_RETURN(HttpResponse response, transport_->Send(request));
  nlohmann::json json = nlohmann::json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  if (response.status != 200) {
    std::string error;
    if (json.is_object() && json.contains("error") && json["error"].is_string()) {
      error = " " + json["error"].get<std::string>();
    }
    std::string message =
        who + " failed: HTTP " + std::to_string(response.status) + error;
    const bool imds_updating = credentials_.kind == AzureCredentials::Kind::kManagedIdentity &&
                               (response.status == 404 || response.status == 410);
    if (response.status == 429 || response.status >= 500 || imds_updating) {
      return Status::Unavailable(message + " (the identity service is busy; weir retries)");
    }
    return Status::IOError(message + " (check the tenant id, client id and secret, or that the "
                                     "identity is assigned to this machine)");
  }
  if (!json.is_object() || !json.contains("access_token") || !json["access_token"].is_string()) {
    return Status::IOError(who + " returned no access_token (unexpected response body)");
  }
  int64_t expires_in = json.contains("expires_in") ? ReadSeconds(json["expires_in"]) : -1;
  const int64_t expires_on = json.contains("expires_on") ? ReadSeconds(json["expires_on"]) : -1;
  token_ = json["access_token"].get<std::string>();
  if (expires_in > 0) {
    expires_at_ms_ = now_ms_() + expires_in * 1000;
  } else if (expires_on > 0) {  // App Service: seconds since the epoch
    expires_at_ms_ = expires_on * 1000;
  } else {
    expires_at_ms_ = now_ms_() + 3600 * 1000;
  }
  return Status::OK();
}

}  // namespace weir::azure
