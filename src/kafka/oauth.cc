#include "kafka/oauth.h"

#include <curl/curl.h>
#include <dlfcn.h>
#include <librdkafka/rdkafka.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

namespace weir::kafka {

namespace {

std::string FormEncode(std::string_view text) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else if (c == ' ') {
      out.push_back('+');
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

int64_t SystemNowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Result<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Status::InvalidArgument("cannot read the federated token file " + path +
                                   " (AZURE_FEDERATED_TOKEN_FILE / eventhubs.federatedTokenFile)");
  }
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

std::string TrimSpace(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  size_t b = 0;
  while (b < text.size() && std::isspace(static_cast<unsigned char>(text[b]))) ++b;
  return text.substr(b);
}

// A JSON number or a decimal string (IMDS and App Service send strings); -1 otherwise.
int64_t ReadSeconds(const nlohmann::json& value) {
  if (value.is_number_integer()) return value.get<int64_t>();
  if (value.is_number()) return static_cast<int64_t>(value.get<double>());
  if (value.is_string()) {
    const std::string& s = value.get_ref<const std::string&>();
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) return -1;
    return std::atoll(s.c_str());
  }
  return -1;
}

std::string WhatToCheck(const OAuthClientCredentials& c) {
  switch (c.kind) {
    case OAuthCredentialKind::kClientSecret:
      return "check eventhubs.tenantId, eventhubs.clientId and eventhubs.clientSecret";
    case OAuthCredentialKind::kWorkloadIdentity:
      return "check that the application's federated credential names this service account "
             "(issuer and subject) and that the token file is the pod's projected token";
    case OAuthCredentialKind::kManagedIdentity:
      return "check that the identity is assigned to this machine (a user-assigned one is "
             "chosen by eventhubs.clientId, managedIdentityObjectId or managedIdentityResourceId)";
  }
  return "";
}

// libcurl through dlopen: the kafka module does not link libcurl (weir's build links it into
// the storage code), and Entra ID is the only HTTP call Kafka needs.
class CurlTokenHttpClient : public TokenHttpClient {
 public:
  using InitFn = CURL* (*)();
  using SetoptFn = CURLcode (*)(CURL*, CURLoption, ...);
  using PerformFn = CURLcode (*)(CURL*);
  using GetinfoFn = CURLcode (*)(CURL*, CURLINFO, ...);
  using CleanupFn = void (*)(CURL*);
  using StrerrorFn = const char* (*)(CURLcode);
  using SlistAppendFn = curl_slist* (*)(curl_slist*, const char*);
  using SlistFreeFn = void (*)(curl_slist*);

  static Result<std::unique_ptr<TokenHttpClient>> Load(int timeout_ms) {
    void* lib = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      return Status::Unavailable(
          "Entra ID token requests need libcurl (libcurl.so.4), which is not installed; install "
          "the libcurl4 package");
    }
    auto client = std::unique_ptr<CurlTokenHttpClient>(new CurlTokenHttpClient());
    client->lib_ = lib;
    client->timeout_ms_ = timeout_ms;
    client->init_ = reinterpret_cast<InitFn>(dlsym(lib, "curl_easy_init"));
    client->setopt_ = reinterpret_cast<SetoptFn>(dlsym(lib, "curl_easy_setopt"));
    client->perform_ = reinterpret_cast<PerformFn>(dlsym(lib, "curl_easy_perform"));
    client->getinfo_ = reinterpret_cast<GetinfoFn>(dlsym(lib, "curl_easy_getinfo"));
    client->cleanup_ = reinterpret_cast<CleanupFn>(dlsym(lib, "curl_easy_cleanup"));
    client->strerror_ = reinterpret_cast<StrerrorFn>(dlsym(lib, "curl_easy_strerror"));
    client->slist_append_ = reinterpret_cast<SlistAppendFn>(dlsym(lib, "curl_slist_append"));
    client->slist_free_ = reinterpret_cast<SlistFreeFn>(dlsym(lib, "curl_slist_free_all"));
    if (!client->init_ || !client->setopt_ || !client->perform_ || !client->getinfo_ ||
        !client->cleanup_ || !client->strerror_ || !client->slist_append_ || !client->slist_free_) {
      return Status::Unavailable("libcurl.so.4 lacks the easy API functions weir needs");
    }
    return std::unique_ptr<TokenHttpClient>(std::move(client));
  }

  ~CurlTokenHttpClient() override {
    if (lib_ != nullptr) dlclose(lib_);
  }

  Result<TokenHttpResponse> Send(const TokenHttpRequest& request) override {
    CURL* curl = init_();
    if (curl == nullptr) return Status::Internal("curl_easy_init failed");
    std::string response;
    curl_slist* headers = nullptr;
    for (const auto& [name, value] : request.headers) {
      headers = slist_append_(headers, (name + ": " + value).c_str());
    }
    setopt_(curl, CURLOPT_URL, request.url.c_str());
    if (request.method == "POST") {
      setopt_(curl, CURLOPT_POST, 1L);
      setopt_(curl, CURLOPT_POSTFIELDS, request.body.c_str());
      setopt_(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(request.body.size()));
    } else {
      setopt_(curl, CURLOPT_HTTPGET, 1L);
    }
    if (headers != nullptr) setopt_(curl, CURLOPT_HTTPHEADER, headers);
    setopt_(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout_ms_));
    setopt_(curl, CURLOPT_NOSIGNAL, 1L);
    setopt_(curl, CURLOPT_NOPROXY, "169.254.169.254,localhost,127.0.0.1");  // IMDS, local endpoints
    setopt_(curl, CURLOPT_WRITEFUNCTION, &CurlTokenHttpClient::Write);
    setopt_(curl, CURLOPT_WRITEDATA, &response);
    CURLcode rc = perform_(curl);
    long status = 0;
    if (rc == CURLE_OK) getinfo_(curl, CURLINFO_RESPONSE_CODE, &status);
    cleanup_(curl);
    if (headers != nullptr) slist_free_(headers);
    if (rc != CURLE_OK) {
      std::string url = request.url.substr(0, request.url.find('?'));
      return Status::Unavailable("the request to the token endpoint " + url + " failed: " +
                                 strerror_(rc));
    }
    return TokenHttpResponse{static_cast<int>(status), std::move(response)};
  }

 private:
  CurlTokenHttpClient() = default;
  static size_t Write(char* data, size_t size, size_t count, void* user) {
    static_cast<std::string*>(user)->append(data, size * count);
    return size * count;
  }
  void* lib_ = nullptr;
  int timeout_ms_ = 30000;
  InitFn init_ = nullptr;
  SetoptFn setopt_ = nullptr;
  PerformFn perform_ = nullptr;
  GetinfoFn getinfo_ = nullptr;
  CleanupFn cleanup_ = nullptr;
  StrerrorFn strerror_ = nullptr;
  SlistAppendFn slist_append_ = nullptr;
  SlistFreeFn slist_free_ = nullptr;
};

}  // namespace

Result<std::unique_ptr<TokenHttpClient>> MakeCurlTokenHttpClient(int timeout_ms) {
  return CurlTokenHttpClient::Load(timeout_ms);
}

std::string ClientCredentialsRequestBody(const OAuthClientCredentials& c,
                                         std::string_view federated_token) {
  std::string body = "grant_type=client_credentials&client_id=" + FormEncode(c.client_id);
  if (!federated_token.empty()) {
    body += "&client_assertion_type=" +
            FormEncode("urn:ietf:params:oauth:client-assertion-type:jwt-bearer") +
            "&client_assertion=" + FormEncode(federated_token);
  } else {
    body += "&client_secret=" + FormEncode(c.client_secret);
  }
  if (!c.scope.empty()) body += "&scope=" + FormEncode(c.scope);
  return body;
}

TokenHttpRequest BuildTokenRequest(const OAuthClientCredentials& c,
                                   std::string_view federated_token) {
  TokenHttpRequest request;
  if (c.kind != OAuthCredentialKind::kManagedIdentity) {
    request.method = "POST";
    request.url = c.token_endpoint_url;
    request.headers.emplace_back("Content-Type", "application/x-www-form-urlencoded");
    request.body = ClientCredentialsRequestBody(
        c, c.kind == OAuthCredentialKind::kWorkloadIdentity ? federated_token : std::string_view());
    return request;
  }
  request.method = "GET";
  const bool app_service = !c.identity_header.empty();
  // IMDS and App Service name the user-assigned selectors differently.
  request.url = c.managed_identity_endpoint +
                (c.managed_identity_endpoint.find('?') == std::string::npos ? "?" : "&") +
                "api-version=" + (app_service ? "2019-08-01" : "2018-02-01") +
                "&resource=" + FormEncode(c.Resource());
  if (!c.client_id.empty()) request.url += "&client_id=" + FormEncode(c.client_id);
  if (!c.managed_identity_object_id.empty()) {
    request.url += (app_service ? "&principal_id=" : "&object_id=") +
                   FormEncode(c.managed_identity_object_id);
  }
  if (!c.managed_identity_resource_id.empty()) {
    request.url += (app_service ? "&mi_res_id=" : "&msi_res_id=") +
                   FormEncode(c.managed_identity_resource_id);
  }
  if (app_service) {
    request.headers.emplace_back("X-IDENTITY-HEADER", c.identity_header);
  } else {
    request.headers.emplace_back("Metadata", "true");
  }
  return request;
}

Result<OAuthToken> ParseTokenResponse(int http_status, std::string_view body, int64_t now_ms,
                                      const OAuthClientCredentials& credentials,
                                      const Redactor& redactor) {
  nlohmann::json json =
      nlohmann::json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  const bool managed = credentials.kind == OAuthCredentialKind::kManagedIdentity;
  if (http_status != 200) {
    std::string detail;
    if (!json.is_discarded() && json.is_object()) {
      if (json.contains("error") && json["error"].is_string()) {
        detail = json["error"].get<std::string>();
      }
      for (const char* field : {"error_description", "message"}) {
        if (json.contains(field) && json[field].is_string()) {
          detail += (detail.empty() ? "" : ": ") + json[field].get<std::string>();
          break;
        }
      }
    }
    const bool transient = http_status >= 500 || http_status == 429 || http_status == 408 ||
                           (managed && (http_status == 404 || http_status == 410));
    std::string msg = "the token endpoint refused " + credentials.Describe() + " (HTTP " +
                      std::to_string(http_status) + ")" + (detail.empty() ? "" : ": " + detail);
    msg += transient ? "; the identity service is busy or updating, weir tries again"
                     : "; " + WhatToCheck(credentials) +
                           ", and that the identity has the 'Azure Event Hubs Data Receiver' "
                           "role on the namespace or event hub";
    msg = redactor.Scrub(msg);
    if (transient) return Status::Unavailable(msg);
    return Status::InvalidArgument(msg);
  }
  if (json.is_discarded() || !json.is_object() || !json.contains("access_token") ||
      !json["access_token"].is_string()) {
    return Status::Unavailable("the token endpoint answered HTTP 200 without an access_token for " +
                               credentials.Describe());
  }
  OAuthToken token;
  token.value = json["access_token"].get<std::string>();
  int64_t expires_in = json.contains("expires_in") ? ReadSeconds(json["expires_in"]) : -1;
  if (expires_in > 0) {
    token.expires_at_ms = now_ms + expires_in * 1000;
  } else if (int64_t on = json.contains("expires_on") ? ReadSeconds(json["expires_on"]) : -1;
             on > 0) {
    token.expires_at_ms = on * 1000;
  } else {
    token.expires_at_ms = now_ms + 3600 * 1000;
  }
  token.principal = !credentials.client_id.empty() ? credentials.client_id
                    : managed                       ? "managed-identity"
                                                    : "weir";
  return token;
}

EntraTokenSource::EntraTokenSource(OAuthClientCredentials credentials, Redactor redactor,
                                   std::unique_ptr<TokenHttpClient> client,
                                   std::function<int64_t()> now_ms,
                                   std::function<Result<std::string>(const std::string&)> read_file)
    : credentials_(std::move(credentials)),
      redactor_(std::move(redactor)),
      now_ms_(now_ms ? std::move(now_ms) : std::function<int64_t()>(SystemNowMs)),
      read_file_(read_file ? std::move(read_file)
                           : std::function<Result<std::string>(const std::string&)>(ReadWholeFile)),
      client_(std::move(client)) {}

Result<OAuthToken> EntraTokenSource::Token() {
  std::lock_guard<std::mutex> lock(mutex_);
  const int64_t now = now_ms_();
  if (!cached_.value.empty() && now - cached_at_ms_ < (cached_.expires_at_ms - cached_at_ms_) / 2) {
    return cached_;
  }
  Result<OAuthToken> token = Fetch();
  for (int attempt = 1; attempt < 3 && !token.ok() && token.status().IsUnavailable(); ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500 * attempt));
    token = Fetch();
  }
  if (!token.ok()) return token;
  cached_ = *token;
  cached_at_ms_ = now;
  return token;
}

Result<OAuthToken> EntraTokenSource::Fetch() {
  std::string federated;
  if (credentials_.kind == OAuthCredentialKind::kWorkloadIdentity) {
    WEIR_ASSIGN_OR_RETURN(std::string content, read_file_(credentials_.federated_token_file));
    federated = TrimSpace(std::move(content));
    if (federated.empty()) {
      return Status::InvalidArgument("the federated token file " +
                                     credentials_.federated_token_file + " is empty");
    }
  }
  TokenHttpRequest request = BuildTokenRequest(credentials_, federated);
  auto response = client_->Send(request);
  if (!response.ok()) {
    return redactor_.Scrub(Status::Unavailable(
        "no Entra ID token for " + credentials_.Describe() + ": " + response.status().message()));
  }
  return ParseTokenResponse(response->status, response->body, now_ms_(), credentials_, redactor_);
}

Result<std::shared_ptr<OAuthTokenSource>> MakeTokenSource(const OAuthClientCredentials& credentials,
                                                          const Redactor& redactor,
                                                          int timeout_ms) {
  WEIR_ASSIGN_OR_RETURN(auto client, MakeCurlTokenHttpClient(timeout_ms));
  return std::shared_ptr<OAuthTokenSource>(
      std::make_shared<EntraTokenSource>(credentials, redactor, std::move(client)));
}

std::string RefreshOAuthBearerToken(rd_kafka_t* rk, OAuthTokenSource& source,
                                    const Redactor& redactor, bool* permanent) {
  if (permanent != nullptr) *permanent = false;
  auto token = source.Token();
  if (!token.ok()) {
    std::string msg = redactor.Scrub(token.status().message());
    rd_kafka_oauthbearer_set_token_failure(rk, msg.c_str());
    if (permanent != nullptr) *permanent = token.status().IsInvalidArgument();
    return "OAUTHBEARER token request failed: " + msg;
  }
  char errstr[512];
  if (rd_kafka_oauthbearer_set_token(rk, token->value.c_str(), token->expires_at_ms,
                                     token->principal.c_str(), nullptr, 0, errstr,
                                     sizeof(errstr)) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    std::string msg = redactor.Scrub(errstr);
    rd_kafka_oauthbearer_set_token_failure(rk, msg.c_str());
    if (permanent != nullptr) *permanent = true;
    return "OAUTHBEARER token rejected by librdkafka: " + msg;
  }
  return "";
}

}  // namespace weir::kafka
