// BlobFileSystem: fs::FileSystem over one Azure Blob Storage container (ADLS Gen2 accounts too,
// through their Blob endpoint). PutIfAbsent is Put Blob with If-None-Match: * — atomic, the Delta
// commit primitive. Rename/RenameNoReplace are copy + delete and NOT atomic (see docs/azure.md);
// directories are blob-name prefixes: CreateDirs and SyncDir do nothing, and List() of a prefix
// with no blobs is an empty list rather than NotFound.
// Paths: an Azure URL of the same account and container, or a path relative to the URL the file
// system was opened with. Thread-safe.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "azure/azure_url.h"
#include "azure/blob_client.h"
#include "azure/credentials.h"
#include "azure/http_transport.h"
#include "fs/file_system.h"

namespace weir::azure {

class BlobFileSystem final : public fs::FileSystem {
 public:
  struct Options {
    // A WritableFile uploads a block each time this many bytes are buffered; a file no larger is
    // written with one Put Blob.
    size_t block_size = size_t{8} << 20;
    // maxresults of each List Blobs page (the service caps it at 5000).
    int list_page_size = 5000;
    // Threads deleting blobs at once in DeleteDirRecursive.
    size_t delete_parallelism = 8;
    BlobClient::Options client;
  };

  // `root` is the location of the opened URL. REQUIRES: `transport` outlives the file system.
  BlobFileSystem(BlobLocation root, AzureCredentials credentials, HttpTransport* transport,
                 Options options);
  // Owns its transport.
  BlobFileSystem(BlobLocation root, AzureCredentials credentials,
                 std::unique_ptr<HttpTransport> transport, Options options);
  ~BlobFileSystem() override;

  Result<std::unique_ptr<fs::RandomAccessFile>> OpenForRead(const std::string& path) override;
  // The blob is created (or replaced) when the file is closed or synced, not when opened.
  Result<std::unique_ptr<fs::WritableFile>> OpenForWrite(const std::string& path) override;
  Status PutIfAbsent(const std::string& path, std::string_view data) override;
  Status WriteAtomic(const std::string& path, std::string_view data) override;
  Status Rename(const std::string& from, const std::string& to) override;
  Status RenameNoReplace(const std::string& from, const std::string& to) override;
  Status Delete(const std::string& path) override;
  Status DeleteDirRecursive(const std::string& path) override;
  Status CreateDirs(const std::string& path) override;
  Result<bool> Exists(const std::string& path) override;
  Result<fs::FileInfo> GetFileInfo(const std::string& path) override;
  Result<std::vector<fs::FileInfo>> List(const std::string& dir) override;
  Status SyncDir(const std::string& path) override;

  // The blob name `path` refers to (InvalidArgument for a URL of another account or container).
  Result<std::string> BlobName(const std::string& path) const;
  const BlobLocation& root() const { return root_; }
  BlobClient* client() { return &client_; }
  const Options& options() const { return options_; }

 private:
  // Uploads `data` as one blob: Put Blob, or blocks + Put Block List when larger than a block.
  Status Upload(const std::string& blob, std::string_view data, Condition condition);
  // Deletes the named blobs (missing ones are fine), several at once.
  Status DeleteBlobs(const std::vector<std::string>& names);
  // True if some blob's name starts with "<blob>/".
  Result<bool> HasChildren(const std::string& blob);

  const BlobLocation root_;
  std::unique_ptr<HttpTransport> owned_transport_;
  const Options options_;
  BlobClient client_;
};

// Opens the container (and path prefix) named by `url` (see azure_url.h). A SAS token in the
// URL's query string is used when `credentials` are anonymous. Checks that the container exists
// (NotFound otherwise, IOError for bad credentials).
Result<std::unique_ptr<fs::FileSystem>> OpenBlobFileSystem(const std::string& url,
                                                           const AzureCredentials& credentials);
Result<std::unique_ptr<fs::FileSystem>> OpenBlobFileSystem(const std::string& url,
                                                           const AzureCredentials& credentials,
                                                           BlobFileSystem::Options options);

}  // namespace weir::azure
