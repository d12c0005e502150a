#include "azure/blob_client.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <random>
#include <thread>

#include "azure/azure_url.h"
#include "azure/shared_key.h"

namespace weir::azure {

struct BlobClient::Call {
  std::string operation;  // "read", "write", ... for messages
  std::string method;
  std::string container;
  std::string blob;   // decoded; empty for container-level requests
  HttpHeaders query;  // decoded names and values
  HttpHeaders headers;
  std::string_view body;
};

struct BlobClient::Counters {
  std::atomic<int64_t> requests{0};
  std::atomic<int64_t> retries{0};
  std::atomic<int64_t> bytes_sent{0};
  std::atomic<int64_t> bytes_received{0};
};

namespace {

constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                   "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
constexpr const char* kWeekdays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};

bool IsRetryableStatus(long status) {
  return status == 408 || status == 429 || status == 500 || status == 502 || status == 503 ||
         status == 504;
}

std::string DisplayName(const std::string& container, const std::string& blob) {
  return blob.empty() ? container : container + "/" + blob;
}

// Replaces XML's five named entities and numeric character references.
std::string XmlUnescape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '&') {
      out += text[i];
      continue;
    }
    size_t semi = text.find(';', i);
    if (semi == std::string_view::npos) {
      out += text[i];
      continue;
    }
    std::string_view entity = text.substr(i + 1, semi - i - 1);
    if (entity == "amp") {
      out += '&';
    } else if (entity == "lt") {
      out += '<';
    } else if (entity == "gt") {
      out += '>';
    } else if (entity == "quot") {
      out += '"';
    } else if (entity == "apos") {
      out += '\'';
    } else if (entity.size() > 1 && entity[0] == '#') {
      unsigned long code = entity[1] == 'x' || entity[1] == 'X'
                               ? std::strtoul(std::string(entity.substr(2)).c_str(), nullptr, 16)
                               : std::strtoul(std::string(entity.substr(1)).c_str(), nullptr, 10);
      // UTF-8 encode.
      if (code < 0x80) {
        out += static_cast<char>(code);
      } else if (code < 0x800) {
        out += static_cast<char>(0xC0 | (code >> 6));
        out += static_cast<char>(0x80 | (code & 0x3F));
      } else if (code < 0x10000) {
        out += static_cast<char>(0xE0 | (code >> 12));
        out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (code & 0x3F));
      } else {
        out += static_cast<char>(0xF0 | (code >> 18));
        out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (code & 0x3F));
      }
    } else {
      out.append(text.substr(i, semi - i + 1));
    }
    i = semi;
  }
  return out;
}

struct XmlElement {
  bool found = false;
  std::string_view attributes;  // text between the tag name and '>'
  std::string_view text;        // raw (still escaped) content
};

// The first element <tag ...>...</tag> (or <tag/>) in `xml`.
XmlElement FindElement(std::string_view xml, std::string_view tag) {
  XmlElement element;
  std::string open("<");  // (built by appends: GCC 12 warns falsely about "<" + string)
  open += tag;
  size_t pos = 0;
  while ((pos = xml.find(open, pos)) != std::string_view::npos) {
    size_t after = pos + open.size();
    if (after >= xml.size()) return element;
    char next = xml[after];
    if (next != '>' && next != ' ' && next != '/') {
      pos = after;
      continue;  // a longer tag name with the same start
    }
    size_t close = xml.find('>', after);
    if (close == std::string_view::npos) return element;
    element.found = true;
    bool self_closing = xml[close - 1] == '/';
    element.attributes = xml.substr(after, close - after - (self_closing ? 1 : 0));
    if (self_closing) return element;
    std::string end("</");
    end += tag;
    end += '>';
    size_t end_pos = xml.find(end, close + 1);
    if (end_pos == std::string_view::npos) {
      element.found = false;
      return element;
    }
    element.text = xml.substr(close + 1, end_pos - close - 1);
    return element;
  }
  return element;
}

std::string ElementName(const XmlElement& name) {
  std::string decoded = XmlUnescape(name.text);
  // Names with characters XML cannot carry come percent-encoded, flagged Encoded="true".
  if (name.attributes.find("Encoded=\"true\"") != std::string_view::npos) {
    decoded = PercentDecode(decoded);
  }
  return decoded;
}

std::string TrimSlash(std::string name) {
  while (!name.empty() && name.back() == '/') name.pop_back();
  return name;
}

}  // namespace

Result<ListPage> ParseListBlobsXml(std::string_view xml) {
  if (xml.find("<EnumerationResults") == std::string_view::npos) {
    return Status::Corruption("List Blobs response is not an EnumerationResults document");
  }
  ListPage page;
  size_t pos = 0;
  while (true) {
    size_t blob = xml.find("<Blob>", pos);
    size_t prefix = xml.find("<BlobPrefix>", pos);
    if (blob == std::string_view::npos && prefix == std::string_view::npos) break;
    bool is_prefix = prefix < blob;
    size_t start = is_prefix ? prefix : blob;
    std::string_view end_tag = is_prefix ? "</BlobPrefix>" : "</Blob>";
    size_t end = xml.find(end_tag, start);
    if (end == std::string_view::npos) {
      return Status::Corruption("List Blobs response is truncated inside a blob entry");
    }
    std::string_view body = xml.substr(start, end - start);
    pos = end + end_tag.size();
    XmlElement name = FindElement(body, "Name");
    if (!name.found) return Status::Corruption("List Blobs response has an entry without a Name");
    ListedBlob item;
    item.name = ElementName(name);
    item.is_prefix = is_prefix;
    if (!is_prefix) {
      XmlElement length = FindElement(body, "Content-Length");
      if (length.found) item.size = std::strtoll(std::string(length.text).c_str(), nullptr, 10);
      XmlElement modified = FindElement(body, "Last-Modified");
      if (modified.found) item.mtime_ms = ParseHttpDate(modified.text).value_or(0);
      XmlElement folder = FindElement(body, "hdi_isfolder");
      if (folder.found && folder.text == "true") item.is_prefix = true;
    }
    if (item.is_prefix) {
      item.name = TrimSlash(std::move(item.name));
      item.size = 0;
    }
    page.items.push_back(std::move(item));
  }
  XmlElement marker = FindElement(xml, "NextMarker");
  if (marker.found) page.next_marker = XmlUnescape(marker.text);
  return page;
}

std::optional<int64_t> ParseHttpDate(std::string_view text) {
  // "Sun, 06 Nov 1994 08:49:37 GMT"
  char weekday[4] = {0}, month[4] = {0};
  int day = 0, year = 0, hour = 0, minute = 0, second = 0;
  std::string copy(text);
  if (std::sscanf(copy.c_str(), "%3s, %d %3s %d %d:%d:%d", weekday, &day, month, &year, &hour,
                  &minute, &second) != 7) {
    return std::nullopt;
  }
  int month_index = -1;
  for (int i = 0; i < 12; ++i) {
    if (std::strcmp(month, kMonths[i]) == 0) month_index = i;
  }
  if (month_index < 0 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) {
    return std::nullopt;
  }
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = month_index;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  return static_cast<int64_t>(timegm(&tm)) * 1000;
}

std::string FormatHttpDate(int64_t unix_seconds) {
  std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buffer[40];
  std::snprintf(buffer, sizeof(buffer), "%s, %02d %s %04d %02d:%02d:%02d GMT",
                kWeekdays[tm.tm_wday], tm.tm_mday, kMonths[tm.tm_mon], tm.tm_year + 1900,
                tm.tm_hour, tm.tm_min, tm.tm_sec);
  return buffer;
}

Status StatusFromResponse(std::string_view operation, std::string_view blob,
                          const HttpResponse& response, Condition condition) {
  std::string code = response.Header("x-ms-error-code");
  if (code.empty()) {
    // HEAD responses carry no body; others may name the code only in the XML body.
    XmlElement element = FindElement(response.body, "Code");
    if (element.found) code = XmlUnescape(element.text);
  }
  std::string message = std::string(operation) + " " + std::string(blob) + ": HTTP " +
                        std::to_string(response.status);
  if (!code.empty()) message += " " + code;
  long status = response.status;
  if (condition == Condition::kIfNoneMatchAny && (status == 409 || status == 412)) {
    return Status::AlreadyExists(message + " (the blob already exists)");
  }
  if (status == 404) return Status::NotFound(message);
  if (status == 403) {
    return Status::IOError(message +
                           " (access denied: check the account key, the SAS token's permissions "
                           "and expiry, or the identity's Storage Blob Data role)");
  }
  if (status == 401) {
    return Status::IOError(message + " (the storage service rejected the credentials)");
  }
  if (IsRetryableStatus(status)) {
    return Status::Unavailable(message + " (the storage service is busy or failing; retry later)");
  }
  return Status::IOError(message);
}

BlobClient::BlobClient(std::string endpoint, std::string account, AzureCredentials credentials,
                       HttpTransport* transport, Options options)
    : endpoint_(std::move(endpoint)),
      account_(std::move(account)),
      url_path_prefix_([this] {
        size_t scheme = endpoint_.find("://");
        size_t slash = endpoint_.find('/', scheme == std::string::npos ? 0 : scheme + 3);
        return slash == std::string::npos ? std::string() : endpoint_.substr(slash);
      }()),
      credentials_(std::move(credentials)),
      transport_(transport),
      options_(std::move(options)),
      counters_(std::make_unique<Counters>()) {
  if (credentials_.UsesTokens()) {
    tokens_ = std::make_unique<TokenSource>(credentials_, transport_);
  }
  sleep_ = [](int64_t ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); };
}

BlobClient::~BlobClient() = default;

BlobClientMetrics BlobClient::metrics() const {
  BlobClientMetrics m;
  m.requests = counters_->requests.load(std::memory_order_relaxed);
  m.retries = counters_->retries.load(std::memory_order_relaxed);
  m.bytes_sent = counters_->bytes_sent.load(std::memory_order_relaxed);
  m.bytes_received = counters_->bytes_received.load(std::memory_order_relaxed);
  return m;
}

void BlobClient::SetSleepForTesting(std::function<void(int64_t ms)> sleep) {
  sleep_ = std::move(sleep);
}

std::string BlobClient::UrlFor(const std::string& container, const std::string& blob) const {
  std::string url = endpoint_ + "/" + PercentEncode(container, false);
  if (!blob.empty()) {
    url += '/';
    url += PercentEncode(blob, true);
  }
  return url;
}

Status BlobClient::Authorize(const Call& call, HttpRequest* request) {
  switch (credentials_.kind) {
    case AzureCredentials::Kind::kAnonymous:
    case AzureCredentials::Kind::kSas:  // in the query string
      return Status::OK();
    case AzureCredentials::Kind::kClientSecret:
    case AzureCredentials::Kind::kManagedIdentity:
    case AzureCredentials::Kind::kWorkloadIdentity: {
      WEIR_ASSIGN_OR_RETURN(std::string token, tokens_->Token());
      request->headers.emplace_back("Authorization", "Bearer " + token);
      return Status::OK();
    }
    case AzureCredentials::Kind::kSharedKey: {
      std::string path = url_path_prefix_ + "/" + PercentEncode(call.container, false);
      if (!call.blob.empty()) {
        path += '/';
        path += PercentEncode(call.blob, true);
      }
      SignableRequest signable;
      signable.method = call.method;
      signable.account = account_;
      signable.encoded_path = path;
      signable.query = &call.query;
      signable.headers = &request->headers;
      signable.content_length = static_cast<int64_t>(call.body.size());
      WEIR_ASSIGN_OR_RETURN(std::string authorization,
                            SharedKeyAuthorization(account_, credentials_.account_key, signable));
      request->headers.emplace_back("Authorization", std::move(authorization));
      return Status::OK();
    }
  }
  return Status::Internal("unknown Azure credential kind");
}

Result<HttpResponse> BlobClient::Execute(const Call& call, int* attempts) {
  std::string url = UrlFor(call.container, call.blob);
  char separator = '?';
  for (const auto& [name, value] : call.query) {
    url += separator;
    url += PercentEncode(name, false);
    url += '=';
    url += PercentEncode(value, false);
    separator = '&';
  }
  if (credentials_.kind == AzureCredentials::Kind::kSas && !credentials_.sas_token.empty()) {
    std::string_view sas = credentials_.sas_token;
    if (sas.front() == '?') sas.remove_prefix(1);
    url += separator;
    url += sas;
  }
  thread_local std::minstd_rand jitter(std::random_device{}());
  Status last;
  for (int attempt = 1;; ++attempt) {
    if (attempts != nullptr) *attempts = attempt;
    HttpRequest request;
    request.method = call.method;
    request.url = url;
    request.body = call.body;
    request.headers = call.headers;
    request.headers.emplace_back(
        "x-ms-date", FormatHttpDate(std::chrono::duration_cast<std::chrono::seconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count()));
    request.headers.emplace_back("x-ms-version", options_.api_version);
    int64_t retry_after_ms = 0;
    Status auth = Authorize(call, &request);
    if (auth.ok()) {
      counters_->requests.fetch_add(1, std::memory_order_relaxed);
      counters_->bytes_sent.fetch_add(static_cast<int64_t>(call.body.size()),
                                      std::memory_order_relaxed);
      Result<HttpResponse> response = transport_->Send(request);
      if (response.ok()) {
        counters_->bytes_received.fetch_add(static_cast<int64_t>(response->body.size()),
                                            std::memory_order_relaxed);
        if (!IsRetryableStatus(response->status)) return response;
        last = StatusFromResponse(call.operation, DisplayName(call.container, call.blob),
                                  *response);
        std::string after = response->Header("retry-after");
        if (!after.empty()) {
          char* end = nullptr;
          long seconds = std::strtol(after.c_str(), &end, 10);
          if (end != after.c_str() && seconds > 0) retry_after_ms = seconds * 1000;
        }
        if (attempt >= options_.retry.max_attempts) return *std::move(response);
      } else {
        last = response.status();
      }
    } else {
      last = auth;
    }
    if (!last.IsUnavailable() || attempt >= options_.retry.max_attempts) {
      return last.WithContext(call.operation + " " + DisplayName(call.container, call.blob));
    }
    int64_t backoff = options_.retry.initial_backoff_ms << std::min(attempt - 1, 20);
    backoff = std::min(backoff, options_.retry.max_backoff_ms);
    backoff = backoff / 2 + static_cast<int64_t>(jitter() % static_cast<uint64_t>(backoff / 2 + 1));
    backoff = std::max(backoff, std::min(retry_after_ms, options_.retry.max_retry_after_ms));
    counters_->retries.fetch_add(1, std::memory_order_relaxed);
    sleep_(backoff);
  }
}

Result<BlobProperties> BlobClient::GetProperties(const std::string& container,
                                                 const std::string& blob) {
  Call call{"get properties of", "HEAD", container, blob, {}, {}, {}};
  WEIR_ASSIGN_OR_RETURN(HttpResponse response, Execute(call));
  if (response.status != 200) {
    return StatusFromResponse(call.operation, DisplayName(container, blob), response);
  }
  BlobProperties properties;
  properties.size = std::strtoll(response.Header("content-length").c_str(), nullptr, 10);
  properties.mtime_ms = ParseHttpDate(response.Header("last-modified")).value_or(0);
  properties.etag = response.Header("etag");
  properties.is_dir = response.Header("x-ms-meta-hdi_isfolder") == "true";
  return properties;
}

Result<bool> BlobClient::ContainerExists(const std::string& container) {
  Call call{"get properties of container", "HEAD", container, "", {{"restype", "container"}},
            {}, {}};
  WEIR_ASSIGN_OR_RETURN(HttpResponse response, Execute(call));
  if (response.status == 200) return true;
  if (response.status == 404) return false;
  return StatusFromResponse(call.operation, container, response);
}

Status BlobClient::CreateContainer(const std::string& container) {
  Call call{"create container", "PUT", container, "", {{"restype", "container"}}, {}, {}};
  WEIR_ASSIGN_OR_RETURN(HttpResponse response, Execute(call));
  if (response.status == 201) return Status::OK();
  return StatusFromResponse(call.operation, container, response, Condition::kIfNoneMatchAny);
}

Status BlobClient::GetRange(const std::string& container, const std::string& blob,
                            int64_t offset, int64_t length, const std::string& etag,
                            uint8_t* out) {
  if (length == 0) return Status::OK();
  Call call{"read", "GET", container, blob, {}, {}, {}};
  call.headers.emplace_back("x-ms-range", "bytes=" + std::to_string(offset) + "-" +
                                              std::to_string(offset + length - 1));
  if (!etag.empty()) call.headers.emplace_back("If-Match", etag);
  WEIR_ASSIGN_OR_RETURN(HttpResponse response, Execute(call));
  std::string name = DisplayName(container, blob);
  auto short_read = [&](int64_t got) {
    return Status::Corruption("short read of " + name + ": wanted " + std::to_string(length) +
                              " bytes at offset " + std::to_string(offset) +
                              " but the blob ends after " + std::to_string(got) + " of them");
  };
  if (response.status == 416) return short_read(0);
  if (response.status == 412) {
    return Status::IOError("read " + name +
                           ": the blob changed since it was opened (open it again)");
  }
  if (response.status != 206 && response.status != 200) {
    return StatusFromResponse(call.operation, name, response);
  }
  std::string_view body = response.body;
  if (response.status == 200) {  // the server ignored the range (a whole-blob answer)
    body = static_cast<size_t>(offset) <= body.size() ? body.substr(static_cast<size_t>(offset))
                                                      : std::string_view();
  }
  if (static_cast<int64_t>(body.size()) < length) {
    return short_read(static_cast<int64_t>(body.size()));
  }
  std::memcpy(out, body.data(), static_cast<size_t>(length));
  return Status::OK();
}

Result<std::string> BlobClient::GetBlob(const std::string& container, const std::string& blob) {
  Call call{"read", "GET", container, blob, {}, {}, {}};
  WEIR_ASSIGN_OR_RETURN(HttpResponse response, Execute(call));
  if (response.status != 200) {
    return StatusFromResponse(call.operation, DisplayName(container, blob), response);
  }
  return std::move(response.body);
}

Status BlobClient::PutBlob(const std::string& container, const std::string& blob,
                           std::string_view data, Condition condition, bool* retried) {
  Call call{"write", "PUT", container, blob, {}, {}, data};
  call.headers.emplace_back("x-ms-blob-type", "BlockBlob");
  call.headers.emplace_back("Content-Type", "application/octet-stream");
  if (condition == Condition::kIfNoneMatchAny) call.headers.emplace_back("If-None-Match", "*");
  int attempts = 0;
  WEIR_ASSIGN_OR_RETURN(HttpResponse response, Execute(call, &attempts));
  if (retried != nullptr) *retried = attempts > 1;
  if (response.status == 201) return Status::OK();
  return StatusFromResponse(call.operation, DisplayName(container, blob), response, condition);
}

Status BlobClient::PutBlock(const std::string& container, const std::string& blob,
                            const std::string& block_id, std::string_view data) {
  Call call{"write block of", "PUT", container, blob, {{"comp", "block"}, {"blockid", block_id}},
            {}, data};
  call.headers.emplace_back("Content-Type", "application/octet-stream");
  WEIR_ASSIGN_OR_RETURN(HttpResponse response, Execute(call));
  if (response.status == 201) return Status::OK();
  return StatusFromResponse(call.operation, DisplayName(container, blob), response);
}

Status BlobClient::PutBlockList(const std::string& container, const std::string& blob,
                                const std::vector<std::string>& block_ids, Condition condition,
                                bool* retried) {
  std::string xml = "<?xml version=\"1.0\" encoding=\"utf-8\"?><BlockList>";
  for (const std::string& id : block_ids) xml += "<Latest>" + id + "</Latest>";
  xml += "</BlockList>";
  Call call{"commit blocks of", "PUT", container, blob, {{"comp", "blocklist"}}, {}, xml};
  call.headers.emplace_back("Content-Type", "application/xml");
  call.headers.emplace_back("x-ms-blob-content-type", "application/octet-stream");
  if (condition == Condition::kIfNoneMatchAny) call.headers.emplace_back("If-None-Match", "*");
  int attempts = 0;
  WEIR_ASSIGN_OR_RETURN(HttpResponse response, Execute(call, &attempts));
  if (retried != nullptr) *retried = attempts > 1;
  if (response.status == 201) return Status::OK();
  return StatusFromResponse(call.operation, DisplayName(container, blob), response, condition);
}

Status BlobClient::CopyBlob(const std::string& container, const std::string& from,
                            const std::string& to, Condition condition) {
  std::string source = UrlFor(container, from);
  if (credentials_.kind == AzureCredentials::Kind::kSas && !credentials_.sas_token.empty()) {
    std::string_view sas = credentials_.sas_token;
    if (sas.front() == '?') sas.remove_prefix(1);
    source += '?';
    source += sas;
  }
  Call call{"copy " + DisplayName(container, from) + " to", "PUT", container, to, {}, {}, {}};
  call.headers.emplace_back("x-ms-copy-source", source);
  if (condition == Condition::kIfNoneMatchAny) call.headers.emplace_back("If-None-Match", "*");
  WEIR_ASSIGN_OR_RETURN(HttpResponse response, Execute(call));
  std::string name = DisplayName(container, to);
  if (response.status == 404) {
    // The source is missing (BlobNotFound / CannotVerifyCopySource): name it, not the target.
    return StatusFromResponse("copy", DisplayName(container, from), response);
  }
  if (response.status != 202 && response.status != 201) {
    return StatusFromResponse(call.operation, name, response, condition);
  }
  std::string copy_status = response.Header("x-ms-copy-status");
  int64_t waited_ms = 0;
  int64_t poll_ms = 50;
  while (copy_status == "pending") {
    if (waited_ms > options_.copy_timeout_ms) {
      return Status::Unavailable(call.operation + " " + name + ": the copy is still pending after " +
                                 std::to_string(waited_ms / 1000) + " s");
    }
    sleep_(poll_ms);
    waited_ms += poll_ms;
    poll_ms = std::min<int64_t>(poll_ms * 2, 2000);
    Call head{"get properties of", "HEAD", container, to, {}, {}, {}};
    WEIR_ASSIGN_OR_RETURN(HttpResponse polled, Execute(head));
    if (polled.status != 200) return StatusFromResponse(head.operation, name, polled);
    copy_status = polled.Header("x-ms-copy-status");
  }
  if (!copy_status.empty() && copy_status != "success") {
    return Status::IOError(call.operation + " " + name + ": the copy ended as " + copy_status);
  }
  return Status::OK();
}

Status BlobClient::DeleteBlob(const std::string& container, const std::string& blob) {
  Call call{"delete", "DELETE", container, blob, {}, {}, {}};
  WEIR_ASSIGN_OR_RETURN(HttpResponse response, Execute(call));
  if (response.status == 202 || response.status == 200) return Status::OK();
  return StatusFromResponse(call.operation, DisplayName(container, blob), response);
}

Result<ListPage> BlobClient::ListBlobs(const std::string& container, const std::string& prefix,
                                       const std::string& delimiter, const std::string& marker,
                                       int max_results) {
  Call call{"list", "GET", container, "", {{"restype", "container"}, {"comp", "list"}}, {}, {}};
  if (!prefix.empty()) call.query.emplace_back("prefix", prefix);
  if (!delimiter.empty()) call.query.emplace_back("delimiter", delimiter);
  if (!marker.empty()) call.query.emplace_back("marker", marker);
  if (max_results > 0) call.query.emplace_back("maxresults", std::to_string(max_results));
  call.query.emplace_back("include", "metadata");
  WEIR_ASSIGN_OR_RETURN(HttpResponse response, Execute(call));
  std::string name = DisplayName(container, prefix);
  if (response.status != 200) return StatusFromResponse(call.operation, name, response);
  auto page = ParseListBlobsXml(response.body);
  if (!page.ok()) return page.status().WithContext("list " + name);
  return page;
}

}  // namespace weir::azure
