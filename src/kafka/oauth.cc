#include "kafka/oauth.h"

#include <curl/curl.h>
#include <librdkafka/rdkafka.h>
#include <dlfcn.h>

#include <chrono>
#include <nlohmann/json.hpp>

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

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// libcurl through dlopen: the kafka module does not link libcurl (weir's build links it into
// the storage code), and Entra ID is the only HTTPS call Kafka needs.
class CurlHttpsPoster : public HttpsPoster {
 public:
  using InitFn = CURL* (*)();
  using SetoptFn = CURLcode (*)(CURL*, CURLoption, ...);
  using PerformFn = CURLcode (*)(CURL*);
  using GetinfoFn = CURLcode (*)(CURL*, CURLINFO, ...);
  using CleanupFn = void (*)(CURL*);
  using StrerrorFn = const char* (*)(CURLcode);

  static Result<std::unique_ptr<HttpsPoster>> Load(int timeout_ms) {
    void* lib = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      return Status::Unavailable(
          "Entra ID token requests need libcurl (libcurl.so.4), which is not installed; install "
          "the libcurl4 package");
    }
    auto poster = std::unique_ptr<CurlHttpsPoster>(new CurlHttpsPoster());
    poster->lib_ = lib;
    poster->timeout_ms_ = timeout_ms;
    poster->init_ = reinterpret_cast<InitFn>(dlsym(lib, "curl_easy_init"));
    poster->setopt_ = reinterpret_cast<SetoptFn>(dlsym(lib, "curl_easy_setopt"));
    poster->perform_ = reinterpret_cast<PerformFn>(dlsym(lib, "curl_easy_perform"));
    poster->getinfo_ = reinterpret_cast<GetinfoFn>(dlsym(lib, "curl_easy_getinfo"));
    poster->cleanup_ = reinterpret_cast<CleanupFn>(dlsym(lib, "curl_easy_cleanup"));
    poster->strerror_ = reinterpret_cast<StrerrorFn>(dlsym(lib, "curl_easy_strerror"));
    if (!poster->init_ || !poster->setopt_ || !poster->perform_ || !poster->getinfo_ ||
        !poster->cleanup_ || !poster->strerror_) {
      return Status::Unavailable("libcurl.so.4 lacks the easy API functions weir needs");
    }
    return std::unique_ptr<HttpsPoster>(std::move(poster));
  }

  ~CurlHttpsPoster() override {
    if (lib_ != nullptr) dlclose(lib_);
  }

  Result<std::pair<int, std::string>> PostForm(const std::string& url,
                                               const std::string& body) override {
    CURL* curl = init_();
    if (curl == nullptr) return Status::Internal("curl_easy_init failed");
    std::string response;
    setopt_(curl, CURLOPT_URL, url.c_str());
    setopt_(curl, CURLOPT_POST, 1L);
    setopt_(curl, CURLOPT_POSTFIELDS, body.c_str());
    setopt_(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
    setopt_(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout_ms_));
    setopt_(curl, CURLOPT_NOSIGNAL, 1L);
    setopt_(curl, CURLOPT_WRITEFUNCTION, &CurlHttpsPoster::Write);
    setopt_(curl, CURLOPT_WRITEDATA, &response);
    CURLcode rc = perform_(curl);
    long status = 0;
    if (rc == CURLE_OK) getinfo_(curl, CURLINFO_RESPONSE_CODE, &status);
    cleanup_(curl);
    if (rc != CURLE_OK) {
      return Status::Unavailable("HTTPS request to the token endpoint " + url + " failed: " +
                                 strerror_(rc));
    }
    return std::make_pair(static_cast<int>(status), std::move(response));
  }

 private:
  CurlHttpsPoster() = default;
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
};

}  // namespace

Result<std::unique_ptr<HttpsPoster>> MakeCurlHttpsPoster(int timeout_ms) {
  return CurlHttpsPoster::Load(timeout_ms);
}

std::string ClientCredentialsRequestBody(const OAuthClientCredentials& c) {
  std::string body = "grant_type=client_credentials&client_id=" + FormEncode(c.client_id) +
                     "&client_secret=" + FormEncode(c.client_secret);
  if (!c.scope.empty()) body += "&scope=" + FormEncode(c.scope);
  return body;
}

Result<OAuthToken> ParseTokenResponse(int http_status, std::string_view body, int64_t now_ms,
                                      const std::string& principal, const Redactor& redactor) {
  nlohmann::json json =
      nlohmann::json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  if (http_status != 200) {
    std::string detail;
    if (!json.is_discarded() && json.is_object()) {
      if (json.contains("error") && json["error"].is_string()) detail = json["error"].get<std::string>();
      if (json.contains("error_description") && json["error_description"].is_string()) {
        detail += ": " + json["error_description"].get<std::string>();
      }
    }
    std::string msg = "the token endpoint refused the client credentials (HTTP " +
                      std::to_string(http_status) + ")" + (detail.empty() ? "" : ": " + detail) +
                      "; check the tenant id, client id and client secret, and that the "
                      "application has the 'Azure Event Hubs Data Receiver' role";
    msg = redactor.Scrub(msg);
    if (http_status >= 500 || http_status == 429) return Status::Unavailable(msg);
    return Status::InvalidArgument(msg);
  }
  if (json.is_discarded() || !json.is_object() || !json.contains("access_token") ||
      !json["access_token"].is_string()) {
    return Status::Unavailable("the token endpoint answered HTTP 200 without an access_token");
  }
  OAuthToken token;
  token.value = json["access_token"].get<std::string>();
  int64_t expires_in = 3600;
  if (json.contains("expires_in")) {
    const auto& e = json["expires_in"];
    if (e.is_number_integer()) {
      expires_in = e.get<int64_t>();
    } else if (e.is_string()) {
      expires_in = std::atoll(e.get<std::string>().c_str());
    }
  }
  token.expires_at_ms = now_ms + expires_in * 1000;
  token.principal = principal;
  return token;
}

ClientCredentialsTokenSource::ClientCredentialsTokenSource(OAuthClientCredentials credentials,
                                                           Redactor redactor,
                                                           std::unique_ptr<HttpsPoster> poster)
    : credentials_(std::move(credentials)),
      redactor_(std::move(redactor)),
      poster_(std::move(poster)) {}

Result<OAuthToken> ClientCredentialsTokenSource::Token() {
  std::lock_guard<std::mutex> lock(mutex_);
  auto response =
      poster_->PostForm(credentials_.token_endpoint_url, ClientCredentialsRequestBody(credentials_));
  if (!response.ok()) return redactor_.Scrub(response.status());
  return ParseTokenResponse(response->first, response->second, NowMs(), credentials_.client_id,
                            redactor_);
}

std::string RefreshOAuthBearerToken(rd_kafka_t* rk, OAuthTokenSource& source,
                                    const Redactor& redactor) {
  auto token = source.Token();
  if (!token.ok()) {
    std::string msg = redactor.Scrub(token.status().ToString());
    rd_kafka_oauthbearer_set_token_failure(rk, msg.c_str());
    return "OAUTHBEARER token request failed: " + msg;
  }
  char errstr[512];
  if (rd_kafka_oauthbearer_set_token(rk, token->value.c_str(), token->expires_at_ms,
                                     token->principal.c_str(), nullptr, 0, errstr,
                                     sizeof(errstr)) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    std::string msg = redactor.Scrub(errstr);
    rd_kafka_oauthbearer_set_token_failure(rk, msg.c_str());
    return "OAUTHBEARER token rejected by librdkafka: " + msg;
  }
  return "";
}

}  // namespace weir::kafka
