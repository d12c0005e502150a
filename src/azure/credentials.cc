#include "azure/credentials.h"

#include <chrono>
#include <nlohmann/json.hpp>

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

}  // namespace

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
                         std::function<int64_t()> now_ms)
    : credentials_(std::move(credentials)),
      transport_(transport),
      now_ms_(now_ms ? std::move(now_ms) : std::function<int64_t()>(SystemNowMs)) {}

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
  } else if (credentials_.kind == AzureCredentials::Kind::kManagedIdentity) {
    who = "managed identity token request";
    if (!credentials_.managed_identity_client_id.empty()) {
      who += " for client " + credentials_.managed_identity_client_id;
    }
    request.method = "GET";
    request.url = credentials_.imds_endpoint + "?api-version=2018-02-01&resource=" +
                  PercentEncode(kStorageResource, false);
    if (!credentials_.managed_identity_client_id.empty()) {
      request.url += "&client_id=" + PercentEncode(credentials_.managed_identity_client_id, false);
    }
    request.headers.emplace_back("Metadata", "true");
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
    if (response.status == 429 || response.status >= 500) {
      return Status::Unavailable(message + " (the identity service is busy; weir retries)");
    }
    return Status::IOError(message + " (check the tenant id, client id and secret, or that the "
                                     "identity is assigned to this machine)");
  }
  if (!json.is_object() || !json.contains("access_token") || !json["access_token"].is_string()) {
    return Status::IOError(who + " returned no access_token (unexpected response body)");
  }
  int64_t expires_in = json.contains("expires_in") ? ReadSeconds(json["expires_in"]) : -1;
  if (expires_in <= 0) expires_in = 3600;
  token_ = json["access_token"].get<std::string>();
  expires_at_ms_ = now_ms_() + expires_in * 1000;
  return Status::OK();
}

}  // namespace weir::azure
