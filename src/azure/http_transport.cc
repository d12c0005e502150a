#include "azure/http_transport.h"

#include <curl/curl.h>

#include <cctype>
#include <cstring>

#include "azure/azure_url.h"

namespace weir::azure {
namespace {

void GlobalInitOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

size_t WriteBody(char* data, size_t size, size_t count, void* user) {
  static_cast<HttpResponse*>(user)->body.append(data, size * count);
  return size * count;
}

size_t WriteHeader(char* data, size_t size, size_t count, void* user) {
  auto* response = static_cast<HttpResponse*>(user);
  std::string_view line(data, size * count);
  if (line.starts_with("HTTP/")) {
    response->headers.clear();  // a new response (after 100 Continue or a redirect)
    return size * count;
  }
  size_t colon = line.find(':');
  if (colon == std::string_view::npos) return size * count;
  std::string name(line.substr(0, colon));
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string_view value = line.substr(colon + 1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' ')) {
    value.remove_suffix(1);
  }
  response->headers.emplace_back(std::move(name), std::string(value));
  return size * count;
}

// The host of `url` ("http://[::1]:80/x" -> "::1"), lower case.
std::string HostOf(const std::string& url) {
  size_t scheme = url.find("://");
  size_t begin = scheme == std::string::npos ? 0 : scheme + 3;
  size_t end = url.find_first_of("/?#", begin);
  std::string authority =
      url.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
  size_t at = authority.rfind('@');
  if (at != std::string::npos) authority = authority.substr(at + 1);
  std::string host;
  if (!authority.empty() && authority.front() == '[') {
    host = authority.substr(1, authority.find(']') - 1);
  } else {
    host = authority.substr(0, authority.find(':'));
  }
  for (char& c : host) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return host;
}

// IMDS (link-local) and loopback endpoints are reached directly, never through a proxy.
bool BypassesProxy(const std::string& host) {
  return host == "169.254.169.254" || host == "localhost" || host == "::1" ||
         host.starts_with("127.");
}

}  // namespace

std::string HttpResponse::Header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (key == name) return value;
  }
  return "";
}

CurlTransport::CurlTransport() : CurlTransport(Options()) {}

CurlTransport::CurlTransport(Options options) : options_(options) { GlobalInitOnce(); }

CurlTransport::~CurlTransport() {
  for (void* handle : idle_) curl_easy_cleanup(static_cast<CURL*>(handle));
}

void* CurlTransport::Acquire() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!idle_.empty()) {
      void* handle = idle_.back();
      idle_.pop_back();
      return handle;
    }
  }
  return curl_easy_init();
}

void CurlTransport::Release(void* handle) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (idle_.size() < options_.max_idle_handles) {
    idle_.push_back(handle);
  } else {
    curl_easy_cleanup(static_cast<CURL*>(handle));
  }
}

Result<HttpResponse> CurlTransport::Send(const HttpRequest& request) {
  CURL* curl = static_cast<CURL*>(Acquire());
  if (curl == nullptr) return Status::Internal("HTTP: curl_easy_init failed (out of memory?)");
  // Keeps the handle's open connections; clears every option of the previous request.
  curl_easy_reset(curl);

  HttpResponse response;
  curl_easy_setopt(curl, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options_.connect_timeout_ms));
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME,
                   static_cast<long>((options_.stall_timeout_ms + 999) / 1000));
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, WriteBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, WriteHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &response);
  curl_easy_setopt(curl, CURLOPT_TCP_KEEPALIVE, 1L);
  if (options_.total_timeout_ms > 0) {
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(options_.total_timeout_ms));
  }
  const std::string host = HostOf(request.url);
  if (BypassesProxy(host)) curl_easy_setopt(curl, CURLOPT_PROXY, "");

  if (request.method == "GET") {
    curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
  } else if (request.method == "HEAD") {
    curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
  } else {
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());
    if (request.method == "PUT" || request.method == "POST") {
      // POSTFIELDS sends the body (possibly empty, then "Content-Length: 0") with any method.
      curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE,
                       static_cast<curl_off_t>(request.body.size()));
      curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.empty() ? "" : request.body.data());
    }
  }

  curl_slist* headers = nullptr;
  bool has_content_type = false;
  for (const auto& [name, value] : request.headers) {
    std::string line = name + ": " + value;
    headers = curl_slist_append(headers, line.c_str());
    if (name == "Content-Type" || name == "content-type") has_content_type = true;
  }
  // No "Expect: 100-continue" round trip; no form content type that the signature did not cover.
  headers = curl_slist_append(headers, "Expect:");
  if (!has_content_type) headers = curl_slist_append(headers, "Content-Type:");
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);

  CURLcode code = curl_easy_perform(curl);
  curl_slist_free_all(headers);
  if (code != CURLE_OK) {
    curl_easy_cleanup(curl);  // its connection state is unknown: do not reuse it
    std::string target = RedactUrl(request.url);
    std::string reason = curl_easy_strerror(code);
    return Status::Unavailable("HTTP " + request.method + " " + target + " failed: " + reason +
                               " (check the network path to " + host + ")");
  }
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response.status);
  Release(curl);
  return response;
}

}  // namespace weir::azure
