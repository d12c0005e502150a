#include "azure/azure_url.h"

#include <cctype>

namespace weir::azure {
namespace {

enum class UrlKind { kNone, kAbfs, kVirtualHosted, kPathStyle };

struct UrlParts {
  std::string scheme;     // lower case
  std::string authority;  // "container@host" for abfs, "host[:port]" otherwise
  std::string path;       // after the authority, starting with '/' or empty
  std::string query;      // without '?'
};

std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool SplitUrl(std::string_view url, UrlParts* parts) {
  size_t colon = url.find("://");
  if (colon == std::string_view::npos || colon == 0) return false;
  parts->scheme = ToLower(url.substr(0, colon));
  std::string_view rest = url.substr(colon + 3);
  if (size_t hash = rest.find('#'); hash != std::string_view::npos) rest = rest.substr(0, hash);
  if (size_t q = rest.find('?'); q != std::string_view::npos) {
    parts->query = std::string(rest.substr(q + 1));
    rest = rest.substr(0, q);
  }
  size_t slash = rest.find('/');
  parts->authority = std::string(rest.substr(0, slash));
  parts->path = slash == std::string_view::npos ? "" : std::string(rest.substr(slash));
  return !parts->authority.empty();
}

// "host" without ":port"; keeps "[...]" of IPv6 literals.
std::string_view HostOf(std::string_view authority) {
  if (!authority.empty() && authority.front() == '[') {
    size_t close = authority.find(']');
    return close == std::string_view::npos ? authority : authority.substr(0, close + 1);
  }
  return authority.substr(0, authority.find(':'));
}

bool IsLocalOrIpHost(std::string_view host) {
  if (host == "localhost" || (!host.empty() && host.front() == '[')) return true;
  if (host.empty()) return false;
  for (char c : host) {
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.')) return false;
  }
  return true;
}

// For "acct.blob.core.windows.net" / "acct.dfs.core.windows.net": the account, and the blob
// service host. False for any other host.
bool SplitServiceHost(std::string_view host, std::string* account, std::string* blob_host) {
  size_t dot = host.find('.');
  if (dot == std::string_view::npos || dot == 0) return false;
  std::string_view service = host.substr(dot + 1);
  std::string_view suffix;
  if (service.starts_with("blob.")) {
    suffix = service.substr(5);
  } else if (service.starts_with("dfs.")) {
    suffix = service.substr(4);
  } else {
    return false;
  }
  if (!suffix.starts_with("core.") || suffix.size() <= 5) return false;
  *account = std::string(host.substr(0, dot));
  *blob_host = *account + ".blob." + std::string(suffix);
  return true;
}

UrlKind Classify(const UrlParts& parts) {
  std::string account, blob_host;
  if (parts.scheme == "abfss" || parts.scheme == "abfs") {
    size_t at = parts.authority.find('@');
    if (at == std::string::npos) return UrlKind::kNone;
    std::string host = ToLower(HostOf(std::string_view(parts.authority).substr(at + 1)));
    return SplitServiceHost(host, &account, &blob_host) ? UrlKind::kAbfs : UrlKind::kNone;
  }
  if (parts.scheme != "https" && parts.scheme != "http") return UrlKind::kNone;
  std::string host = ToLower(HostOf(parts.authority));
  if (SplitServiceHost(host, &account, &blob_host)) return UrlKind::kVirtualHosted;
  if (IsLocalOrIpHost(host)) return UrlKind::kPathStyle;
  return UrlKind::kNone;
}

std::string_view Trim(std::string_view s, char c) {
  while (!s.empty() && s.front() == c) s.remove_prefix(1);
  while (!s.empty() && s.back() == c) s.remove_suffix(1);
  return s;
}

Status BadUrl(std::string_view url, std::string_view why) {
  return Status::InvalidArgument("invalid Azure storage URL " + RedactUrl(url) + ": " +
                                 std::string(why) +
                                 " (expected abfss://container@account.dfs.core.windows.net/path "
                                 "or https://account.blob.core.windows.net/container/path)");
}

}  // namespace

bool IsAzureUrl(std::string_view url) {
  UrlParts parts;
  return SplitUrl(url, &parts) && Classify(parts) != UrlKind::kNone;
}

Result<BlobLocation> ParseAzureUrl(std::string_view url) {
  UrlParts parts;
  if (!SplitUrl(url, &parts)) return BadUrl(url, "not a URL");
  BlobLocation location;
  location.query = parts.query;
  std::string_view path = Trim(parts.path, '/');
  switch (Classify(parts)) {
    case UrlKind::kNone:
      return BadUrl(url, "unknown scheme or host");
    case UrlKind::kAbfs: {
      size_t at = parts.authority.find('@');
      location.container = parts.authority.substr(0, at);
      std::string host = ToLower(HostOf(std::string_view(parts.authority).substr(at + 1)));
      std::string blob_host;
      SplitServiceHost(host, &location.account, &blob_host);
      std::string port = parts.authority.substr(at + 1 + host.size());  // ":443" or ""
      location.endpoint = (parts.scheme == "abfss" ? "https://" : "http://") + blob_host + port;
      break;
    }
    case UrlKind::kVirtualHosted: {
      std::string host = ToLower(HostOf(parts.authority));
      std::string blob_host;
      SplitServiceHost(host, &location.account, &blob_host);
      std::string port = parts.authority.substr(host.size());
      location.endpoint = parts.scheme + "://" + blob_host + port;
      size_t slash = path.find('/');
      location.container = std::string(path.substr(0, slash));
      path = slash == std::string_view::npos ? std::string_view() : path.substr(slash + 1);
      break;
    }
    case UrlKind::kPathStyle: {
      size_t slash = path.find('/');
      location.account = std::string(path.substr(0, slash));
      if (location.account.empty()) return BadUrl(url, "no account name in the path");
      path = slash == std::string_view::npos ? std::string_view() : path.substr(slash + 1);
      location.endpoint = parts.scheme + "://" + parts.authority + "/" + location.account;
      slash = path.find('/');
      location.container = std::string(path.substr(0, slash));
      path = slash == std::string_view::npos ? std::string_view() : path.substr(slash + 1);
      break;
    }
  }
  if (location.container.empty()) return BadUrl(url, "no container name");
  location.container = PercentDecode(location.container);
  location.path = std::string(Trim(PercentDecode(Trim(path, '/')), '/'));
  return location;
}

std::string PercentEncode(std::string_view text, bool keep_slash) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || c == '.' || c == '_' || c == '~' ||
        (keep_slash && c == '/')) {
      out += c;
    } else {
      out += '%';
      out += kHex[u >> 4];
      out += kHex[u & 15];
    }
  }
  return out;
}

std::string PercentDecode(std::string_view text) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && hex(text[i + 1]) >= 0 &&
        hex(text[i + 2]) >= 0) {
      out += static_cast<char>(hex(text[i + 1]) * 16 + hex(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string RedactUrl(std::string_view url) {
  size_t q = url.find('?');
  if (q == std::string_view::npos) return std::string(url);
  return std::string(url.substr(0, q)) + "?<redacted>";
}

}  // namespace weir::azure
