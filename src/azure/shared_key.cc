#include "azure/shared_key.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <vector>

namespace weir::azure {
namespace {

std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && ToLower(a) == ToLower(b);
}

// Header values are signed with surrounding whitespace removed and inner runs of whitespace
// folded to one space.
std::string FoldWhitespace(std::string_view value) {
  std::string out;
  bool pending_space = false;
  for (char c : value) {
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      pending_space = !out.empty();
      continue;
    }
    if (pending_space) out += ' ';
    pending_space = false;
    out += c;
  }
  return out;
}

std::string HeaderValue(const HttpHeaders* headers, std::string_view name) {
  if (headers == nullptr) return "";
  for (const auto& [key, value] : *headers) {
    if (EqualsIgnoreCase(key, name)) return value;
  }
  return "";
}

}  // namespace

std::string SharedKeyStringToSign(const SignableRequest& request) {
  std::string out(request.method);
  out += '\n';
  for (std::string_view name : {"Content-Encoding", "Content-Language"}) {
    out += HeaderValue(request.headers, name);
    out += '\n';
  }
  if (request.content_length > 0) out += std::to_string(request.content_length);
  out += '\n';
  for (std::string_view name : {"Content-MD5", "Content-Type", "Date", "If-Modified-Since",
                                "If-Match", "If-None-Match", "If-Unmodified-Since", "Range"}) {
    out += HeaderValue(request.headers, name);
    out += '\n';
  }
  // Canonicalized headers: x-ms-* in lower case, sorted by name, one "name:value\n" each.
  std::map<std::string, std::string> ms_headers;
  if (request.headers != nullptr) {
    for (const auto& [key, value] : *request.headers) {
      std::string lower = ToLower(key);
      if (lower.starts_with("x-ms-")) ms_headers[lower] = FoldWhitespace(value);
    }
  }
  for (const auto& [key, value] : ms_headers) {
    out += key;
    out += ':';
    out += value;
    out += '\n';
  }
  // Canonicalized resource: "/<account><encoded path>", then "\n<name>:<v1,v2>" per query
  // parameter, names lower case and sorted, values sorted.
  out += '/';
  out += request.account;
  out += request.encoded_path.empty() ? std::string_view("/") : request.encoded_path;
  std::map<std::string, std::vector<std::string>> params;
  if (request.query != nullptr) {
    for (const auto& [key, value] : *request.query) params[ToLower(key)].push_back(value);
  }
  for (auto& [key, values] : params) {
    std::sort(values.begin(), values.end());
    out += '\n';
    out += key;
    out += ':';
    for (size_t i = 0; i < values.size(); ++i) {
      if (i > 0) out += ',';
      out += values[i];
    }
  }
  return out;
}

Result<std::string> SharedKeyAuthorization(std::string_view account,
                                           std::string_view base64_key,
                                           const SignableRequest& request) {
  auto key = Base64Decode(base64_key);
  if (!key.ok() || key->empty()) {
    return Status::InvalidArgument(
        "Azure shared key for account " + std::string(account) +
        " is not valid base64 (copy the storage account's access key exactly)");
  }
  std::string signature = Base64Encode(HmacSha256(*key, SharedKeyStringToSign(request)));
  return "SharedKey " + std::string(account) + ":" + signature;
}

std::string Base64Encode(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(bytes.data()),
                          static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

Result<std::string> Base64Decode(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  if (text.size() % 4 != 0) return Status::InvalidArgument("base64 text has a bad length");
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '/' ||
              (c == '=' && i + 2 >= text.size());
    if (!ok) return Status::InvalidArgument("base64 text has a character outside the alphabet");
  }
  std::string out(3 * (text.size() / 4) + 1, '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(text.data()),
                          static_cast<int>(text.size()));
  if (n < 0) return Status::InvalidArgument("base64 text does not decode");
  size_t padding = 0;
  if (!text.empty() && text.back() == '=') ++padding;
  if (text.size() > 1 && text[text.size() - 2] == '=') ++padding;
  out.resize(static_cast<size_t>(n) - padding);
  return out;
}

std::string HmacSha256(std::string_view key, std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest, &length);
  return std::string(reinterpret_cast<char*>(digest), length);
}

}  // namespace weir::azure
