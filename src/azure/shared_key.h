// Shared Key authorization of Blob service requests: the string-to-sign built by the canonical
// rules of "Authorize with Shared Key" (service version 2015-02-21 and later: a zero
// Content-Length signs as empty), signed with HMAC-SHA256 under the base64-decoded account key.
// Also the base64 and HMAC primitives (OpenSSL). Pure functions; thread-safe. The key is never
// part of any returned error.
#pragma once

#include <string>
#include <string_view>

#include "azure/http_transport.h"
#include "base/result.h"

namespace weir::azure {

struct SignableRequest {
  std::string_view method;
  std::string_view account;
  // The URL path exactly as sent, percent-encoded, e.g. "/container/dir/a%20b" or, path-style,
  // "/devstoreaccount1/container/blob".
  std::string_view encoded_path;
  // Query parameters, decoded (names and values as before percent-encoding).
  const HttpHeaders* query = nullptr;
  // Request headers as sent (any case); x-ms-* ones and the standard ones below are signed.
  const HttpHeaders* headers = nullptr;
  int64_t content_length = 0;
};

std::string SharedKeyStringToSign(const SignableRequest& request);

// "SharedKey <account>:<base64 HMAC-SHA256 of the string-to-sign>". InvalidArgument if the key is
// not valid base64 (the message does not quote it).
Result<std::string> SharedKeyAuthorization(std::string_view account,
                                           std::string_view base64_key,
                                           const SignableRequest& request);

std::string Base64Encode(std::string_view bytes);
// InvalidArgument for characters outside the base64 alphabet or a bad length.
Result<std::string> Base64Decode(std::string_view text);
// Raw 32-byte HMAC-SHA256 of `data` under `key`.
std::string HmacSha256(std::string_view key, std::string_view data);

}  // namespace weir::azure
