#include "azure/blob_file_system.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <thread>

#include "azure/shared_key.h"

namespace weir::azure {
namespace {

std::string StripSlashes(std::string_view path) {
  while (!path.empty() && path.front() == '/') path.remove_prefix(1);
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  return std::string(path);
}

// 16 random hex digits, so that two writers of one blob never share a block id.
std::string RandomTag() {
  thread_local std::mt19937_64 random(std::random_device{}());
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(random()));
  return hex;
}

// Block ids must be base64 and of one length within a blob.
std::string BlockId(const std::string& tag, size_t index) {
  char text[40];
  std::snprintf(text, sizeof(text), "%s-%010zu", tag.c_str(), index);
  return Base64Encode(text);
}

class BlobRandomAccessFile final : public fs::RandomAccessFile {
 public:
  BlobRandomAccessFile(std::string path, BlobClient* client, std::string container,
                       std::string blob, BlobProperties properties)
      : RandomAccessFile(std::move(path)),
        client_(client),
        container_(std::move(container)),
        blob_(std::move(blob)),
        properties_(std::move(properties)) {}

  Result<int64_t> Size() override { return properties_.size; }

  Status ReadAt(int64_t offset, int64_t length, uint8_t* out) override {
    if (offset < 0 || length < 0) {
      return Status::InvalidArgument("read " + RedactUrl(path()) + ": negative offset " +
                                     std::to_string(offset) + " or length " +
                                     std::to_string(length));
    }
    return client_->GetRange(container_, blob_, offset, length, properties_.etag, out);
  }

 private:
  BlobClient* const client_;
  const std::string container_;
  const std::string blob_;
  const BlobProperties properties_;
};

class BlobWritableFile final : public fs::WritableFile {
 public:
  BlobWritableFile(std::string path, BlobClient* client, std::string container, std::string blob,
                   size_t block_size)
      : WritableFile(std::move(path)),
        client_(client),
        container_(std::move(container)),
        blob_(std::move(blob)),
        block_size_(std::max<size_t>(block_size, 1)),
        tag_(RandomTag()) {}

  Status Append(std::string_view data) override {
    WEIR_RETURN_NOT_OK(CheckUsable("append to"));
    buffer_.append(data);
    size_ += static_cast<int64_t>(data.size());
    if (!data.empty()) changed_ = true;
    if (buffer_.size() < block_size_) return Status::OK();
    size_t done = 0;
    while (buffer_.size() - done >= block_size_) {
      Status st = StageBlock(std::string_view(buffer_).substr(done, block_size_));
      if (!st.ok()) return st;
      done += block_size_;
    }
    buffer_.erase(0, done);
    return Status::OK();
  }

  // Commits everything appended so far: the blob then exists with that content.
  Status Sync() override {
    WEIR_RETURN_NOT_OK(CheckUsable("sync"));
    if (committed_ && !changed_) return Status::OK();
    if (!buffer_.empty()) {
      WEIR_RETURN_NOT_OK(StageBlock(buffer_));
      buffer_.clear();
    }
    return Commit();
  }

  Status Close() override {
    if (closed_) return Status::OK();
    closed_ = true;
    Status status = error_;
    if (status.ok()) {
      if (block_ids_.empty() && !committed_) {
        status = client_->PutBlob(container_, blob_, buffer_, Condition::kNone);  // one request
      } else if (changed_) {
        if (!buffer_.empty()) status = StageBlock(buffer_);
        if (status.ok()) status = Commit();
      }
    }
    buffer_.clear();
    buffer_.shrink_to_fit();
    return status;
  }

  int64_t Size() const override { return size_; }

 private:
  Status CheckUsable(std::string_view operation) {
    if (closed_) {
      return Status::InvalidArgument(std::string(operation) + " " + RedactUrl(path()) +
                                     ": the file is already closed");
    }
    return error_;
  }

  Status StageBlock(std::string_view data) {
    std::string id = BlockId(tag_, block_ids_.size());
    Status st = client_->PutBlock(container_, blob_, id, data);
    if (!st.ok()) {
      error_ = st;
      return st;
    }
    block_ids_.push_back(std::move(id));
    return Status::OK();
  }

  Status Commit() {
    Status st = client_->PutBlockList(container_, blob_, block_ids_, Condition::kNone);
    if (!st.ok()) {
      error_ = st;
      return st;
    }
    committed_ = true;
    changed_ = false;
    return Status::OK();
  }

  BlobClient* const client_;
  const std::string container_;
  const std::string blob_;
  const size_t block_size_;
  const std::string tag_;
  std::string buffer_;
  std::vector<std::string> block_ids_;
  int64_t size_ = 0;
  bool committed_ = false;  // a block list was committed (by Sync)
  bool changed_ = false;    // bytes were appended since the last commit
  bool closed_ = false;
  Status error_;  // sticky: the first failed upload
};

}  // namespace

BlobFileSystem::BlobFileSystem(BlobLocation root, AzureCredentials credentials,
                               HttpTransport* transport, Options options)
    : root_(std::move(root)),
      options_(options),
      client_(root_.endpoint, root_.account, std::move(credentials), transport, options.client) {}

BlobFileSystem::BlobFileSystem(BlobLocation root, AzureCredentials credentials,
                               std::unique_ptr<HttpTransport> transport, Options options)
    : root_(std::move(root)),
      owned_transport_(std::move(transport)),
      options_(options),
      client_(root_.endpoint, root_.account, std::move(credentials), owned_transport_.get(),
              options.client) {}

BlobFileSystem::~BlobFileSystem() = default;

Result<std::string> BlobFileSystem::BlobName(const std::string& path) const {
  if (IsAzureUrl(path)) {
    WEIR_ASSIGN_OR_RETURN(BlobLocation location, ParseAzureUrl(path));
    if (location.endpoint != root_.endpoint || location.container != root_.container) {
      return Status::InvalidArgument("path " + RedactUrl(path) + " is in container " +
                                     location.container + " of " + location.endpoint +
                                     ", but this file system serves container " +
                                     root_.container + " of " + root_.endpoint);
    }
    return location.path;
  }
  std::string_view relative = path;
  while (relative.starts_with("./")) relative.remove_prefix(2);
  if (relative == ".") relative = "";
  std::string name = StripSlashes(relative);
  if (root_.path.empty()) return name;
  if (name.empty()) return root_.path;
  return root_.path + "/" + name;
}

Status BlobFileSystem::Upload(const std::string& blob, std::string_view data,
                              Condition condition) {
  bool retried = false;
  Status status;
  if (data.size() <= options_.block_size) {
    status = client_.PutBlob(root_.container, blob, data, condition, &retried);
  } else {
    std::string tag = RandomTag();
    std::vector<std::string> ids;
    for (size_t offset = 0; offset < data.size(); offset += options_.block_size) {
      ids.push_back(BlockId(tag, ids.size()));
      WEIR_RETURN_NOT_OK(
          client_.PutBlock(root_.container, blob, ids.back(), data.substr(offset, options_.block_size)));
    }
    status = client_.PutBlockList(root_.container, blob, ids, condition, &retried);
  }
  if (status.IsAlreadyExists() && retried) {
    // A retried create can fail because its own first attempt succeeded (the response was
    // lost). The blob then holds exactly our bytes; when it cannot be read, nobody can tell
    // whether it is ours: not AlreadyExists (a proof of someone else's blob), but Unavailable.
    auto existing = client_.GetBlob(root_.container, blob);
    if (existing.ok() && *existing == data) return Status::OK();
    if (!existing.ok()) {
      return Status::Unavailable("put-if-absent " + RedactUrl(blob) +
                                 ": a retried create found the blob existing and reading it "
                                 "failed (" + existing.status().message() +
                                 "), so whether it holds this write is unknown");
    }
  }
  return status;
}

Result<bool> BlobFileSystem::HasChildren(const std::string& blob) {
  std::string prefix = blob.empty() ? "" : blob + "/";
  WEIR_ASSIGN_OR_RETURN(ListPage page, client_.ListBlobs(root_.container, prefix, "", "", 1));
  return !page.items.empty();
}

Result<std::unique_ptr<fs::RandomAccessFile>> BlobFileSystem::OpenForRead(
    const std::string& path) {
  WEIR_ASSIGN_OR_RETURN(std::string blob, BlobName(path));
  WEIR_ASSIGN_OR_RETURN(BlobProperties properties, client_.GetProperties(root_.container, blob));
  if (properties.is_dir) {
    return Status::IOError("open for read " + RedactUrl(path) + ": it is a directory");
  }
  return std::unique_ptr<fs::RandomAccessFile>(std::make_unique<BlobRandomAccessFile>(
      path, &client_, root_.container, std::move(blob), std::move(properties)));
}

Result<std::unique_ptr<fs::WritableFile>> BlobFileSystem::OpenForWrite(const std::string& path) {
  WEIR_ASSIGN_OR_RETURN(std::string blob, BlobName(path));
  if (blob.empty()) {
    return Status::InvalidArgument("open for write " + RedactUrl(path) +
                                   ": the path names the container, not a blob");
  }
  return std::unique_ptr<fs::WritableFile>(std::make_unique<BlobWritableFile>(
      path, &client_, root_.container, std::move(blob), options_.block_size));
}

Status BlobFileSystem::PutIfAbsent(const std::string& path, std::string_view data) {
  WEIR_ASSIGN_OR_RETURN(std::string blob, BlobName(path));
  return Upload(blob, data, Condition::kIfNoneMatchAny);
}

Status BlobFileSystem::WriteAtomic(const std::string& path, std::string_view data) {
  WEIR_ASSIGN_OR_RETURN(std::string blob, BlobName(path));
  return Upload(blob, data, Condition::kNone);
}

Status BlobFileSystem::Rename(const std::string& from, const std::string& to) {
  WEIR_ASSIGN_OR_RETURN(std::string source, BlobName(from));
  WEIR_ASSIGN_OR_RETURN(std::string target, BlobName(to));
  if (source == target) return Status::OK();
  Status copied = client_.CopyBlob(root_.container, source, target, Condition::kNone);
  if (copied.ok()) return client_.DeleteBlob(root_.container, source);
  if (!copied.IsNotFound()) return copied;
  // Not a blob: a directory is renamed child by child (not atomic).
  std::vector<std::string> children;
  std::string marker;
  do {
    WEIR_ASSIGN_OR_RETURN(ListPage page, client_.ListBlobs(root_.container, source + "/", "",
                                                           marker, options_.list_page_size));
    for (ListedBlob& item : page.items) {
      if (!item.is_prefix) children.push_back(std::move(item.name));
    }
    marker = page.next_marker;
  } while (!marker.empty());
  if (children.empty()) return copied;
  for (const std::string& child : children) {
    std::string moved = target + child.substr(source.size());
    WEIR_RETURN_NOT_OK(client_.CopyBlob(root_.container, child, moved, Condition::kNone));
  }
  for (const std::string& child : children) {
    Status st = client_.DeleteBlob(root_.container, child);
    if (!st.ok() && !st.IsNotFound()) return st;
  }
  return Status::OK();
}

Status BlobFileSystem::RenameNoReplace(const std::string& from, const std::string& to) {
  WEIR_ASSIGN_OR_RETURN(std::string source, BlobName(from));
  WEIR_ASSIGN_OR_RETURN(std::string target, BlobName(to));
  WEIR_ASSIGN_OR_RETURN(bool target_is_dir, HasChildren(target));
  if (target_is_dir) {
    return Status::AlreadyExists("rename " + RedactUrl(from) + " to " + RedactUrl(to) +
                                 ": the target exists (a directory)");
  }
  Status copied = client_.CopyBlob(root_.container, source, target, Condition::kIfNoneMatchAny);
  if (copied.IsAlreadyExists()) {
    return Status::AlreadyExists("rename " + RedactUrl(from) + " to " + RedactUrl(to) +
                                 ": the target exists");
  }
  WEIR_RETURN_NOT_OK(copied);
  return client_.DeleteBlob(root_.container, source);
}

Status BlobFileSystem::Delete(const std::string& path) {
  WEIR_ASSIGN_OR_RETURN(std::string blob, BlobName(path));
  Status st = client_.DeleteBlob(root_.container, blob);
  if (!st.IsNotFound()) return st;
  WEIR_ASSIGN_OR_RETURN(bool has_children, HasChildren(blob));
  if (has_children) {
    return Status::IOError("delete " + RedactUrl(path) +
                           ": the directory is not empty (use a recursive delete)");
  }
  return st;
}

Status BlobFileSystem::DeleteDirRecursive(const std::string& path) {
  WEIR_ASSIGN_OR_RETURN(std::string blob, BlobName(path));
  std::string prefix = blob.empty() ? "" : blob + "/";
  std::vector<std::string> files;
  std::vector<std::string> folders;  // hierarchical-namespace directory entries
  std::string marker;
  do {
    WEIR_ASSIGN_OR_RETURN(ListPage page, client_.ListBlobs(root_.container, prefix, "", marker,
                                                           options_.list_page_size));
    for (ListedBlob& item : page.items) {
      (item.is_prefix ? folders : files).push_back(std::move(item.name));
    }
    marker = page.next_marker;
  } while (!marker.empty());
  WEIR_RETURN_NOT_OK(DeleteBlobs(files));
  // Deepest folders first, so that each is empty when deleted.
  std::sort(folders.begin(), folders.end(), std::greater<>());
  for (const std::string& name : folders) {
    Status st = client_.DeleteBlob(root_.container, name);
    if (!st.ok() && !st.IsNotFound()) return st;
  }
  // The directory's own entry, if the account has a hierarchical namespace.
  Status self = blob.empty() ? Status::NotFound("") : client_.DeleteBlob(root_.container, blob);
  if (!self.ok() && !self.IsNotFound()) return self;
  if (files.empty() && folders.empty() && !self.ok()) {
    return Status::NotFound("delete directory " + RedactUrl(path) + ": no such directory");
  }
  return Status::OK();
}

Status BlobFileSystem::DeleteBlobs(const std::vector<std::string>& names) {
  std::atomic<size_t> next{0};
  std::mutex mutex;
  Status first_error;
  auto work = [&] {
    while (true) {
      size_t i = next.fetch_add(1);
      if (i >= names.size()) return;
      Status st = client_.DeleteBlob(root_.container, names[i]);
      if (!st.ok() && !st.IsNotFound()) {
        std::lock_guard<std::mutex> lock(mutex);
        if (first_error.ok()) first_error = st;
        next.store(names.size());  // stop the others early
      }
    }
  };
  size_t workers = std::min<size_t>(options_.delete_parallelism, names.size() / 4);
  std::vector<std::thread> threads;
  for (size_t i = 1; i < workers; ++i) threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();
  return first_error;
}

Status BlobFileSystem::CreateDirs(const std::string& path) {
  return BlobName(path).status();  // directories are name prefixes: nothing to create
}

Result<bool> BlobFileSystem::Exists(const std::string& path) {
  WEIR_ASSIGN_OR_RETURN(std::string blob, BlobName(path));
  if (blob.empty()) return client_.ContainerExists(root_.container);
  auto properties = client_.GetProperties(root_.container, blob);
  if (properties.ok()) return true;
  if (!properties.status().IsNotFound()) return properties.status();
  return HasChildren(blob);
}

Result<fs::FileInfo> BlobFileSystem::GetFileInfo(const std::string& path) {
  WEIR_ASSIGN_OR_RETURN(std::string blob, BlobName(path));
  fs::FileInfo info;
  info.path = path;
  if (blob.empty()) {
    WEIR_ASSIGN_OR_RETURN(bool exists, client_.ContainerExists(root_.container));
    if (!exists) {
      return Status::NotFound("stat " + RedactUrl(path) + ": container " + root_.container +
                              " does not exist");
    }
    info.is_dir = true;
    return info;
  }
  auto properties = client_.GetProperties(root_.container, blob);
  if (properties.ok()) {
    info.is_dir = properties->is_dir;
    info.size = properties->is_dir ? 0 : properties->size;
    info.mtime_ms = properties->mtime_ms;
    return info;
  }
  if (!properties.status().IsNotFound()) return properties.status();
  WEIR_ASSIGN_OR_RETURN(bool has_children, HasChildren(blob));
  if (!has_children) {
    return Status::NotFound("stat " + RedactUrl(path) + ": no such blob or directory");
  }
  info.is_dir = true;
  return info;
}

Result<std::vector<fs::FileInfo>> BlobFileSystem::List(const std::string& dir) {
  WEIR_ASSIGN_OR_RETURN(std::string blob, BlobName(dir));
  std::string prefix = blob.empty() ? "" : blob + "/";
  std::map<std::string, fs::FileInfo> children;  // by name: sorted, and one entry per name
  std::string marker;
  do {
    WEIR_ASSIGN_OR_RETURN(ListPage page, client_.ListBlobs(root_.container, prefix, "/", marker,
                                                           options_.list_page_size));
    for (const ListedBlob& item : page.items) {
      if (item.name.size() <= prefix.size()) continue;  // a "dir/" marker blob itself
      std::string name = item.name.substr(prefix.size());
      auto [it, inserted] = children.try_emplace(name);
      fs::FileInfo& info = it->second;
      if (!inserted && info.is_dir) continue;  // a directory listed both as blob and prefix
      info.path = fs::JoinPath(dir, name);
      info.is_dir = item.is_prefix;
      info.size = item.is_prefix ? 0 : item.size;
      info.mtime_ms = item.mtime_ms;
    }
    marker = page.next_marker;
  } while (!marker.empty());
  std::vector<fs::FileInfo> out;
  out.reserve(children.size());
  for (auto& [name, info] : children) out.push_back(std::move(info));
  return out;
}

Status BlobFileSystem::SyncDir(const std::string& path) {
  return BlobName(path).status();  // every completed blob write is already durable and visible
}

Result<std::unique_ptr<fs::FileSystem>> OpenBlobFileSystem(const std::string& url,
                                                           const AzureCredentials& credentials) {
  return OpenBlobFileSystem(url, credentials, BlobFileSystem::Options());
}

Result<std::unique_ptr<fs::FileSystem>> OpenBlobFileSystem(const std::string& url,
                                                           const AzureCredentials& credentials,
                                                           BlobFileSystem::Options options) {
  WEIR_ASSIGN_OR_RETURN(BlobLocation location, ParseAzureUrl(url));
  AzureCredentials chosen = credentials;
  if (chosen.kind == AzureCredentials::Kind::kAnonymous && !location.query.empty()) {
    chosen = AzureCredentials::Sas(location.query);
  }
  location.query.clear();
  auto fs = std::make_unique<BlobFileSystem>(location, std::move(chosen),
                                             std::make_unique<CurlTransport>(), options);
  auto exists = fs->client()->ContainerExists(location.container);
  if (!exists.ok()) {
    // A SAS or role scoped below the container may not read the container's properties; any
    // other failure (bad key, no network) is reported now.
    const std::string& message = exists.status().message();
    bool scoped_denial = message.find("HTTP 403 AuthorizationPermissionMismatch") !=
                             std::string::npos ||
                         message.find("HTTP 403 AuthorizationResourceTypeMismatch") !=
                             std::string::npos;
    if (!scoped_denial) {
      return exists.status().WithContext("open " + RedactUrl(url));
    }
  } else if (!*exists) {
    return Status::NotFound("open " + RedactUrl(url) + ": container " + location.container +
                            " does not exist in account " + location.account +
                            " (create it, or check the URL)");
  }
  return std::unique_ptr<fs::FileSystem>(std::move(fs));
}

}  // namespace weir::azure
