#include "stream/state_store.h"

#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/iterator.h>
#include <rocksdb/options.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/table.h>
#include <rocksdb/utilities/checkpoint.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <map>
#include <nlohmann/json.hpp>
#include <vector>

#include "fs/local_file_system.h"

namespace weir::stream {

namespace {

constexpr int kFormatVersion = 1;
constexpr std::string_view kMarkerName = "weir-state.json";
constexpr std::string_view kWorkName = "_work";
constexpr std::string_view kLockName = "LOCK";
constexpr std::string_view kTempPrefix = ".tmp-";
constexpr char kRowsPrefix = 'r';
constexpr char kIndexPrefix = 'i';
static_assert(kIndexPrefix < kRowsPrefix, "WriteOut puts index updates before row updates");
// Pending updates (StateStoreOptions::pending_bytes) are written to RocksDB at once: as one sorted
// SST file ingested into the working database (no memtable skiplist inserts, which cost a dozen
// random key comparisons each), or, below kIngestMinBytes (a commit's remainder), a write batch.
constexpr size_t kIngestMinBytes = size_t{256} << 10;
constexpr std::string_view kIngestName = ".tmp-ingest.sst";
// ApplyPending's file, built while the background write-out (kIngestName) finishes.
constexpr std::string_view kLastIngestName = ".tmp-ingest-last.sst";

// Sorted updates lie scattered over the buffer's arena: while update i is written, the entry of
// update i + kPrefetchEntries and the bytes of update i + kPrefetchBytes are loaded, so the
// walk waits on few cache misses (the entry must arrive before its bytes can be located).
constexpr size_t kPrefetchBytes = 8;
constexpr size_t kPrefetchEntries = 16;

void PrefetchSortedUpdate(const std::vector<const UpdateBuffer::Update*>& sorted, size_t i) {
  if (i + kPrefetchEntries < sorted.size()) __builtin_prefetch(sorted[i + kPrefetchEntries]);
  if (i + kPrefetchBytes < sorted.size()) {
    const UpdateBuffer::Update* u = sorted[i + kPrefetchBytes];
    // Keys hold the keyspace byte (never empty); a value follows its key in the arena.
    __builtin_prefetch(u->key.data());
    if (u->value.empty()) {
      __builtin_prefetch(u->key.data() + u->key.size() - 1);
    } else {
      __builtin_prefetch(u->value.data() + u->value.size() - 1);
    }
  }
}

char PrefixOf(StateStore::Keyspace keyspace) {
  return keyspace == StateStore::Keyspace::kRows ? kRowsPrefix : kIndexPrefix;
}

int64_t ElapsedMs(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               start)
      .count();
}

// Converts a RocksDB status (this adapter is the only place that sees them).
Status FromRocks(const rocksdb::Status& s, std::string_view operation, const std::string& path) {
  if (s.ok()) return Status::OK();
  std::string msg = std::string(operation) + " " + path + ": " + s.ToString();
  if (s.IsCorruption()) return Status::Corruption(std::move(msg));
  if (s.IsNoSpace()) {
    return Status::IOError(std::move(msg) + " (free disk space, then restart the query)");
  }
  if (s.IsIOError() || s.IsNotFound()) return Status::IOError(std::move(msg));
  return Status::Internal(std::move(msg));
}

bool ParseVersionName(std::string_view name, int64_t* version) {
  if (name.empty() || name.size() > 18) return false;
  int64_t v = 0;
  for (char c : name) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *version = v;
  return true;
}

// Copies a file, possibly between file systems (the cache and the remote state folder).
Status CopyFile(fs::FileSystem* from_fs, const std::string& from, fs::FileSystem* to_fs,
                const std::string& to) {
  WEIR_ASSIGN_OR_RETURN(auto in, from_fs->OpenForRead(from));
  WEIR_ASSIGN_OR_RETURN(int64_t size, in->Size());
  WEIR_ASSIGN_OR_RETURN(auto out, to_fs->OpenForWrite(to));
  constexpr int64_t kChunk = int64_t{1} << 20;
  std::vector<uint8_t> buffer(static_cast<size_t>(std::min(size, kChunk)));
  for (int64_t offset = 0; offset < size; offset += kChunk) {
    int64_t n = std::min(kChunk, size - offset);
    WEIR_RETURN_NOT_OK(in->ReadAt(offset, n, buffer.data()));
    WEIR_RETURN_NOT_OK(
        out->Append(std::string_view(reinterpret_cast<const char*>(buffer.data()), n)));
  }
  // The working copy is disposable: no sync. A remote (object store) file is durable once closed;
  // the version's marker, written after every file, is what makes a version valid.
  return out->Close();
}

Status CopyFile(fs::FileSystem* fs, const std::string& from, const std::string& to) {
  return CopyFile(fs, from, fs, to);
}

bool IsUrl(std::string_view path) {
  size_t scheme = path.find("://");
  return scheme != std::string_view::npos && scheme > 0;
}

// $TMPDIR/weir-state-cache/<FNV-1a hash of the remote folder>.
std::string DefaultCacheDir(std::string_view remote_dir) {
  uint64_t hash = 14695981039346656037ull;
  for (char c : remote_dir) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ull;
  }
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(hash));
  const char* tmp = std::getenv("TMPDIR");
  std::string base = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
  return fs::JoinPath(fs::JoinPath(base, "weir-state-cache"), hex);
}

// The files of a version folder (not the marker, temporaries or folders): name → size.
Result<std::map<std::string, int64_t>> VersionFiles(fs::FileSystem* fs, const std::string& vdir) {
  WEIR_ASSIGN_OR_RETURN(std::vector<fs::FileInfo> entries, fs->List(vdir));
  std::map<std::string, int64_t> files;
  for (const fs::FileInfo& f : entries) {
    std::string name = fs::BaseName(f.path);
    if (f.is_dir || name == kMarkerName || fs::IsTempFileName(name)) continue;
    files[name] = f.size;
  }
  return files;
}

Status DeleteIfExists(fs::FileSystem* fs, const std::string& path, bool dir) {
  Status s = dir ? fs->DeleteDirRecursive(path) : fs->Delete(path);
  return s.IsNotFound() ? Status::OK() : s;
}

struct Marker {
  int64_t version = -1;
  int64_t num_rows = 0;
  std::string schema;
};

std::string SerializeMarker(const Marker& marker) {
  nlohmann::ordered_json j;
  j["formatVersion"] = kFormatVersion;
  j["version"] = marker.version;
  j["numRows"] = marker.num_rows;
  j["schema"] = marker.schema;
  return j.dump();
}

Result<Marker> ParseMarker(std::string_view text, const std::string& path) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  auto bad = [&](std::string_view what) {
    return Status::Corruption("Invalid state version marker " + path + ": " + std::string(what) +
                              ". The state folder was damaged; restore it or start the query "
                              "with a new checkpoint");
  };
  if (j.is_discarded() || !j.is_object()) return bad("not a JSON object");
  auto format = j.find("formatVersion");
  if (format == j.end() || !format->is_number_integer()) return bad("no formatVersion");
  if (format->get<int64_t>() > kFormatVersion) {
    return Status::Corruption("State version marker " + path + " has formatVersion " +
                              std::to_string(format->get<int64_t>()) +
                              ": it was written by a newer weir (this one reads " +
                              std::to_string(kFormatVersion) + ")");
  }
  auto version = j.find("version");
  auto rows = j.find("numRows");
  auto schema = j.find("schema");
  if (version == j.end() || !version->is_number_integer()) return bad("no version");
  if (rows == j.end() || !rows->is_number_integer() || rows->get<int64_t>() < 0) {
    return bad("no numRows");
  }
  if (schema == j.end() || !schema->is_string()) return bad("no schema");
  return Marker{version->get<int64_t>(), rows->get<int64_t>(), schema->get<std::string>()};
}

}  // namespace

std::string StateStoreDir(std::string_view checkpoint_dir, int64_t operator_id) {
  return fs::JoinPath(
      fs::JoinPath(fs::JoinPath(checkpoint_dir, "state"), std::to_string(operator_id)), "0");
}

// ---- Cursor

struct StateStore::Cursor::Impl {
  std::string lower;
  std::string upper;
  rocksdb::Slice lower_slice;
  rocksdb::Slice upper_slice;
  std::unique_ptr<rocksdb::Iterator> it;
  std::string dir;
};

StateStore::Cursor::Cursor() : impl_(std::make_unique<Impl>()) {}
StateStore::Cursor::~Cursor() = default;
bool StateStore::Cursor::Valid() const { return impl_->it->Valid(); }
void StateStore::Cursor::Next() { impl_->it->Next(); }
std::string_view StateStore::Cursor::key() const {
  rocksdb::Slice k = impl_->it->key();
  return std::string_view(k.data() + 1, k.size() - 1);
}
std::string_view StateStore::Cursor::value() const {
  rocksdb::Slice v = impl_->it->value();
  return std::string_view(v.data(), v.size());
}
Status StateStore::Cursor::status() const {
  return FromRocks(impl_->it->status(), "read state in", impl_->dir);
}

// ---- StateStore

struct StateStore::Lock {
  rocksdb::Env* env = nullptr;
  rocksdb::FileLock* lock = nullptr;
  ~Lock() {
    if (lock != nullptr) env->UnlockFile(lock).PermitUncheckedError();
  }
};

StateStore::StateStore(fs::FileSystem* fs, std::string dir, StateStoreOptions options)
    : fs_(fs), dir_(std::move(dir)), options_(std::move(options)) {}

StateStore::~StateStore() {
  CloseDb();
  if (lock_ != nullptr) {  // only the store holding the lock may touch the folder
    static_cast<void>(DeleteIfExists(fs_, fs::JoinPath(dir_, kWorkName), /*dir=*/true));
  }
  lock_.reset();
}

Result<std::unique_ptr<StateStore>> StateStore::Open(fs::FileSystem* fs, std::string dir,
                                                     int64_t version, StateStoreOptions options) {
  if (version < -1) {
    return Status::InvalidArgument("state store version must be >= -1, got " +
                                   std::to_string(version) + " for " + dir);
  }
  if (options.versions_to_retain < 1) {
    return Status::InvalidArgument("state store must retain at least 1 version, got " +
                                   std::to_string(options.versions_to_retain));
  }
  std::unique_ptr<StateStore> store;
  if (!options.local_cache_dir.empty() || IsUrl(dir)) {
    if (options.cached_versions_to_retain < 1) {
      return Status::InvalidArgument("state store cache must retain at least 1 version, got " +
                                     std::to_string(options.cached_versions_to_retain));
    }
    std::string cache = options.local_cache_dir.empty() ? DefaultCacheDir(dir)
                                                        : options.local_cache_dir;
    store.reset(
        new StateStore(fs::LocalFileSystem::Default(), std::move(cache), std::move(options)));
    store->remote_fs_ = fs;
    store->remote_dir_ = std::move(dir);
  } else {
    store.reset(new StateStore(fs, std::move(dir), std::move(options)));
  }
  fs::FileSystem* local = store->fs_;
  WEIR_RETURN_NOT_OK(local->CreateDirs(store->dir_));
  auto lock = std::make_unique<Lock>();
  lock->env = rocksdb::Env::Default();
  std::string lock_path = fs::JoinPath(store->dir_, kLockName);
  rocksdb::Status ls = lock->env->LockFile(lock_path, &lock->lock);
  if (!ls.ok()) {
    return Status::IOError("Cannot lock state folder " + store->dir_ + ": " + ls.ToString() +
                           ". Another query (or another operator in this process) is using it; "
                           "stop it before starting this one");
  }
  store->lock_ = std::move(lock);
  // One thread uses a store: two shards are plenty, and keep each shard large enough for a whole
  // data block plus the filter and index partitions of a lookup.
  store->block_cache_ =
      rocksdb::NewLRUCache(store->options_.block_cache_bytes, /*num_shard_bits=*/1,
                           /*strict_capacity_limit=*/false,
                           /*high_pri_pool_ratio=*/0.5);
  WEIR_RETURN_NOT_OK(store->Load(version));
  return store;
}

void StateStore::CloseDb() {
  // A write still running uses the database; its error no longer matters (the updates are
  // being discarded).
  static_cast<void>(FinishWriting());
  if (db_ == nullptr) return;
  db_->Close().PermitUncheckedError();
  db_.reset();
}

Status StateStore::Load(int64_t version) {
  CloseDb();
  pending_.Release();
  pending_index_.Release();
  writing_.Release();
  writing_index_.Release();
  // Leftovers of a crash: the working database and half-written versions.
  WEIR_ASSIGN_OR_RETURN(std::vector<fs::FileInfo> entries, fs_->List(dir_));
  for (const fs::FileInfo& e : entries) {
    std::string name = fs::BaseName(e.path);
    if (e.is_dir && (name == kWorkName || name.starts_with(kTempPrefix))) {
      WEIR_RETURN_NOT_OK(DeleteIfExists(fs_, e.path, /*dir=*/true));
    } else if (!e.is_dir && (name == kIngestName || name == kLastIngestName)) {
      WEIR_RETURN_NOT_OK(DeleteIfExists(fs_, e.path, /*dir=*/false));
    }
  }
  std::string work = fs::JoinPath(dir_, kWorkName);
  WEIR_RETURN_NOT_OK(fs_->CreateDirs(work));
  if (version < 0) {
    WEIR_RETURN_NOT_OK(OpenWorkingDb(/*create=*/true));
    num_rows_ = 0;
    loaded_schema_ = options_.schema;
  } else {
    if (remote_fs_ != nullptr) WEIR_RETURN_NOT_OK(FetchVersion(version));
    std::string vdir = fs::JoinPath(dir_, std::to_string(version));
    WEIR_ASSIGN_OR_RETURN(bool exists, fs_->Exists(vdir));
    if (!exists) {
      return Status::Corruption("State version " + std::to_string(version) +
                                " is missing: " + vdir +
                                " does not exist. The checkpoint's state was deleted or "
                                "damaged; restore it or start the query with a new checkpoint");
    }
    std::string marker_path = fs::JoinPath(vdir, kMarkerName);
    Result<std::string> text = fs::ReadFileToString(fs_, marker_path);
    if (!text.ok()) {
      if (text.status().IsNotFound()) {
        return Status::Corruption("State version " + std::to_string(version) + " in " + vdir +
                                  " is incomplete (no " + std::string(kMarkerName) +
                                  "). Restore the folder or start the query with a new checkpoint");
      }
      return text.status();
    }
    WEIR_ASSIGN_OR_RETURN(Marker marker, ParseMarker(*text, marker_path));
    if (marker.version != version) {
      return Status::Corruption("State version marker " + marker_path + " names version " +
                                std::to_string(marker.version) + ", not " +
                                std::to_string(version) + ": the folder was renamed or copied");
    }
    if (marker.schema != options_.schema &&
        (options_.upgradable_schema.empty() || marker.schema != options_.upgradable_schema)) {
      return Status::InvalidArgument(
          "The stateful operator in " + dir_ + " changed: its state holds [" + marker.schema +
          "] but the query now needs [" + options_.schema +
          "]. Keys and values of a stateful operator cannot change within a checkpoint; restore "
          "the query or start it with a new checkpoint");
    }
    WEIR_ASSIGN_OR_RETURN(std::vector<fs::FileInfo> files, fs_->List(vdir));
    for (const fs::FileInfo& f : files) {
      std::string name = fs::BaseName(f.path);
      if (f.is_dir || name == kMarkerName || fs::IsTempFileName(name)) continue;
      WEIR_RETURN_NOT_OK(CopyFile(fs_, f.path, fs::JoinPath(work, name)));
    }
    Status opened = OpenWorkingDb(/*create=*/false);
    if (!opened.ok()) {
      if (!opened.IsCorruption()) return opened;  // e.g. IOError: the disk, not the version
      return Status::Corruption("State version " + std::to_string(version) + " in " + vdir +
                                " cannot be opened: " + opened.message() +
                                ". Restore the folder or start the query with a new checkpoint");
    }
    num_rows_ = marker.num_rows;
    loaded_schema_ = marker.schema;
  }
  version_ = version;
  ResetCounters();
  counters_.commit_time_ms = 0;
  counters_.commit_flush_ms = 0;
  counters_.commit_checkpoint_ms = 0;
  counters_.commit_file_sync_ms = 0;
  return Status::OK();
}

Status StateStore::OpenWorkingDb(bool create) {
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = block_cache_;
  // Index and bloom filter blocks live in the block cache, so memory stays within its budget
  // whatever the state's size; partitioned into small blocks (only a small top level is pinned),
  // so a lookup loads one filter partition, not a whole SST file's filter.
  table.cache_index_and_filter_blocks = true;
  table.cache_index_and_filter_blocks_with_high_priority = true;
  table.pin_top_level_index_and_filter = true;
  table.index_type = rocksdb::BlockBasedTableOptions::IndexType::kTwoLevelIndexSearch;
  table.partition_filters = true;
  table.metadata_block_size = 4096;
  table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));  // most lookups miss (new keys)
  table.optimize_filters_for_memory = true;
  rocksdb::Options options;
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  options.create_if_missing = create;
  options.error_if_exists = false;
  options.write_buffer_size = options_.write_buffer_bytes;
  options.max_write_buffer_number = 2;
  // Recent levels are rewritten often and random keys barely compress: compress only below L1.
  options.compression_per_level = {rocksdb::kNoCompression, rocksdb::kNoCompression,
                                   rocksdb::kLZ4Compression};
  options.target_file_size_base = 8 << 20;
  options.max_bytes_for_level_base = 64 << 20;
  // Keys arrive in random order, so each L0 -> L1 compaction rewrites much of L1: compact less
  // often (lookups check the extra L0 files' bloom filters, which is cheap).
  options.level0_file_num_compaction_trigger = 8;
  options.max_background_jobs = 2;
  // Flush and compaction outputs are written back as they grow rather than left dirty for the
  // fsyncs of every Commit to wait for (ext4 in data=ordered mode). In a 10-minute streaming run
  // the slowest checkpoints of each minute went from 1.5-7.7 s to 1.2-2.8 s, and commits from
  // 26-37 s to 16-25 s a minute (noisy shared host).
  options.bytes_per_sync = 1 << 20;
  options.max_open_files = 256;
  options.avoid_flush_during_shutdown = true;  // uncommitted data is discarded anyway
  options.info_log_level = rocksdb::InfoLogLevel::WARN_LEVEL;
  options.keep_log_file_num = 1;
  options.max_log_file_size = 1 << 20;
  options.stats_dump_period_sec = 0;
  options.stats_persist_period_sec = 0;
  std::string work = fs::JoinPath(dir_, kWorkName);
  rocksdb::DB* db = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(options, work, &db);
  if (!s.ok()) {
    if (s.IsPathNotFound() || s.IsNotFound() || s.IsInvalidArgument()) {
      return Status::Corruption("open RocksDB " + work + ": " + s.ToString());
    }
    return FromRocks(s, "open RocksDB", work);
  }
  db_.reset(db);
  return Status::OK();
}

void StateStore::ResetCounters() {
  counters_.num_rows_updated = 0;
  counters_.num_rows_removed = 0;
  counters_.get_count = 0;
  counters_.put_count = 0;
}

Status StateStore::AddPending(Keyspace keyspace, bool is_put, std::string_view value) {
  UpdateBuffer& buffer = keyspace == Keyspace::kRows ? pending_ : pending_index_;
  buffer.Set(key_buffer_, value, /*is_removal=*/!is_put);
  ++counters_.put_count;
  if (pending_.data_bytes() + pending_index_.data_bytes() >= options_.pending_bytes) {
    return StartWriting();
  }
  return Status::OK();
}

Status StateStore::StartWriting() {
  WEIR_RETURN_NOT_OK(FinishWriting());
  std::swap(pending_, writing_);
  std::swap(pending_index_, writing_index_);
  // The next round of updates is likely as large.
  pending_.Reserve(writing_.size());
  pending_index_.Reserve(writing_index_.size());
  writing_result_ = std::async(std::launch::async, [this] {
    if (options_.before_background_write) options_.before_background_write();
    return WriteOut(writing_index_, writing_);
  });
  return Status::OK();
}

Status StateStore::FinishWriting() {
  if (!writing_result_.valid()) return Status::OK();
  Status written = writing_result_.get();
  writing_.Clear();
  writing_index_.Clear();
  return written;
}

Status StateStore::ApplyPending() {
  const size_t data_bytes = pending_.data_bytes() + pending_index_.data_bytes();
  if (writing_result_.valid() && data_bytes >= kIngestMinBytes) {
    // A write-out is on its way (at the end of a batch, usually still being sorted or written):
    // this one's file is built meanwhile, on this thread, and ingested after it, so that its
    // updates, the newer ones, win. A batch's commit then waits for one write-out, not two.
    const std::string file = fs::JoinPath(dir_, kLastIngestName);
    Status built = DeleteIfExists(fs_, file, /*dir=*/false);
    if (built.ok()) built = BuildSstFile(SortedUpdates(pending_index_, pending_), file);
    Status written = FinishWriting();
    if (written.ok() && built.ok()) built = IngestSstFile(file);
    if (!written.ok() || !built.ok()) (void)DeleteIfExists(fs_, file, /*dir=*/false);
    WEIR_RETURN_NOT_OK(written);
    WEIR_RETURN_NOT_OK(built);
  } else {
    WEIR_RETURN_NOT_OK(FinishWriting());
    WEIR_RETURN_NOT_OK(WriteOut(pending_index_, pending_));
  }
  pending_.Clear();
  pending_index_.Clear();
  return Status::OK();
}

const UpdateBuffer::Update* StateStore::FindPending(std::string_view key) const {
  if (const UpdateBuffer::Update* pending = pending_.Find(key)) return pending;
  // The buffer being written is only read, here and by the writing thread.
  if (writing_result_.valid()) return writing_.Find(key);
  return nullptr;
}

std::vector<const UpdateBuffer::Update*> StateStore::SortedUpdates(
    const UpdateBuffer& index_updates, const UpdateBuffer& row_updates) {
  // Index keys ('i...') sort before row keys ('r...').
  std::vector<const UpdateBuffer::Update*> sorted = index_updates.Sorted();
  std::vector<const UpdateBuffer::Update*> rows = row_updates.Sorted();
  sorted.insert(sorted.end(), rows.begin(), rows.end());
  return sorted;
}

Status StateStore::WriteOut(const UpdateBuffer& index_updates, const UpdateBuffer& row_updates) {
  if (index_updates.empty() && row_updates.empty()) return Status::OK();
  std::vector<const UpdateBuffer::Update*> sorted = SortedUpdates(index_updates, row_updates);
  const size_t data_bytes = index_updates.data_bytes() + row_updates.data_bytes();
  if (data_bytes >= kIngestMinBytes) {
    const std::string file = fs::JoinPath(dir_, kIngestName);
    WEIR_RETURN_NOT_OK(DeleteIfExists(fs_, file, /*dir=*/false));
    WEIR_RETURN_NOT_OK(BuildSstFile(sorted, file));
    return IngestSstFile(file);
  }
  rocksdb::WriteBatch batch(data_bytes + 16 * sorted.size() + 64);
  for (size_t i = 0; i < sorted.size(); ++i) {
    PrefetchSortedUpdate(sorted, i);
    const UpdateBuffer::Update* u = sorted[i];
    rocksdb::Status s = u->removal ? batch.Delete(u->key) : batch.Put(u->key, u->value);
    WEIR_RETURN_NOT_OK(FromRocks(s, "write state in", dir_));
  }
  rocksdb::WriteOptions write;
  write.disableWAL = true;  // durability comes from Commit's checkpoint (docs/state-format.md)
  return FromRocks(db_->Write(write, &batch), "write state in", dir_);
}

Status StateStore::BuildSstFile(const std::vector<const UpdateBuffer::Update*>& sorted,
                                const std::string& file) {
  // Compressed as the last level is (LZ4: hex-digit and prefix-sharing keys shrink ~2x, and the
  // file is part of every version folder until compacted). Its pages stay in the page cache:
  // lookups of duplicates read it soon.
  rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), db_->GetOptions(), /*column_family=*/nullptr,
                                /*invalidate_page_cache=*/false);
  WEIR_RETURN_NOT_OK(FromRocks(writer.Open(file), "write state file", file));
  for (size_t i = 0; i < sorted.size(); ++i) {
    PrefetchSortedUpdate(sorted, i);
    const UpdateBuffer::Update* u = sorted[i];
    rocksdb::Status s = u->removal ? writer.Delete(u->key) : writer.Put(u->key, u->value);
    WEIR_RETURN_NOT_OK(FromRocks(s, "write state file", file));
  }
  return FromRocks(writer.Finish(), "write state file", file);
}

Status StateStore::IngestSstFile(const std::string& file) {
  rocksdb::IngestExternalFileOptions ingest;
  ingest.move_files = true;  // hard-linked into the working database
  ingest.allow_blocking_flush = true;
  WEIR_RETURN_NOT_OK(FromRocks(db_->IngestExternalFile({file}, ingest), "ingest state file", file));
  return DeleteIfExists(fs_, file, /*dir=*/false);
}

Result<std::optional<std::string>> StateStore::Get(std::string_view key, Keyspace keyspace) {
  // Index updates are not looked up in memory: they are written out first.
  if (keyspace == Keyspace::kIndex) WEIR_RETURN_NOT_OK(ApplyPending());
  key_buffer_.assign(1, PrefixOf(keyspace));
  key_buffer_.append(key);
  if (const UpdateBuffer::Update* pending = FindPending(key_buffer_)) {
    return pending->removal ? std::optional<std::string>()
                            : std::optional<std::string>(std::string(pending->value));
  }
  std::string value;
  ++counters_.get_count;
  rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), key_buffer_, &value);
  if (s.IsNotFound()) return std::optional<std::string>();
  WEIR_RETURN_NOT_OK(FromRocks(s, "read state in", dir_));
  return std::optional<std::string>(std::move(value));
}

void StateStore::Prefetch(std::string_view key, Keyspace keyspace) {
  if (keyspace == Keyspace::kIndex) return;  // index updates are only appended
  key_buffer_.assign(1, PrefixOf(keyspace));
  key_buffer_.append(key);
  pending_.Prefetch(key_buffer_);
}

Result<bool> StateStore::Contains(std::string_view key, Keyspace keyspace) {
  if (keyspace == Keyspace::kIndex) WEIR_RETURN_NOT_OK(ApplyPending());
  key_buffer_.assign(1, PrefixOf(keyspace));
  key_buffer_.append(key);
  if (const UpdateBuffer::Update* pending = FindPending(key_buffer_)) return !pending->removal;
  rocksdb::PinnableSlice value;
  ++counters_.get_count;
  rocksdb::Status s =
      db_->Get(rocksdb::ReadOptions(), db_->DefaultColumnFamily(), key_buffer_, &value);
  if (s.IsNotFound()) return false;
  WEIR_RETURN_NOT_OK(FromRocks(s, "read state in", dir_));
  return true;
}

Status StateStore::Put(std::string_view key, std::string_view value, Keyspace keyspace,
                       bool known_absent) {
  if (keyspace == Keyspace::kRows) {
    bool present = false;
    if (!known_absent) {
      WEIR_ASSIGN_OR_RETURN(present, Contains(key, keyspace));
    }
    if (!present) ++num_rows_;
    ++counters_.num_rows_updated;
  }
  key_buffer_.assign(1, PrefixOf(keyspace));
  key_buffer_.append(key);
  return AddPending(keyspace, /*is_put=*/true, value);
}

Status StateStore::Remove(std::string_view key, Keyspace keyspace, bool known_present) {
  if (keyspace == Keyspace::kRows) {
    bool present = true;
    if (!known_present) {
      WEIR_ASSIGN_OR_RETURN(present, Contains(key, keyspace));
    }
    if (!present) return Status::OK();
    --num_rows_;
    ++counters_.num_rows_removed;
  }
  key_buffer_.assign(1, PrefixOf(keyspace));
  key_buffer_.append(key);
  return AddPending(keyspace, /*is_put=*/false, {});
}

Result<std::unique_ptr<StateStore::Cursor>> StateStore::Scan(
    Keyspace keyspace, std::string_view lower, std::optional<std::string_view> upper) {
  WEIR_RETURN_NOT_OK(ApplyPending());
  std::unique_ptr<Cursor> cursor(new Cursor());
  Cursor::Impl& c = *cursor->impl_;
  char prefix = PrefixOf(keyspace);
  c.lower.assign(1, prefix);
  c.lower.append(lower);
  if (upper.has_value()) {
    c.upper.assign(1, prefix);
    c.upper.append(*upper);
  } else {
    c.upper.assign(1, static_cast<char>(prefix + 1));
  }
  c.lower_slice = rocksdb::Slice(c.lower);
  c.upper_slice = rocksdb::Slice(c.upper);
  c.dir = dir_;
  rocksdb::ReadOptions read;
  read.iterate_lower_bound = &c.lower_slice;
  read.iterate_upper_bound = &c.upper_slice;
  c.it.reset(db_->NewIterator(read));
  c.it->Seek(c.lower_slice);
  return cursor;
}

Status StateStore::Commit(int64_t new_version) {
  if (new_version <= version_) {
    return Status::InvalidArgument("state store commit of version " + std::to_string(new_version) +
                                   " in " + dir_ + " must follow the loaded version " +
                                   std::to_string(version_));
  }
  auto start = std::chrono::steady_clock::now();
  WEIR_RETURN_NOT_OK(ApplyPending());
  // Between batches the buffers hold no memory beyond their minimum.
  pending_.Release();
  pending_index_.Release();
  writing_.Release();
  writing_index_.Release();
  rocksdb::FlushOptions flush;
  flush.wait = true;
  flush.allow_write_stall = true;
  WEIR_RETURN_NOT_OK(FromRocks(db_->Flush(flush), "flush state in", dir_));
  counters_.commit_flush_ms = ElapsedMs(start);
  WEIR_RETURN_NOT_OK(WriteVersion(new_version));
  // Retention before taking the new version: if it fails, the caller re-runs the batch from the
  // old version, and the next Commit replaces the new folder (WriteVersion).
  if (remote_fs_ != nullptr) {
    auto upload_start = std::chrono::steady_clock::now();
    WEIR_RETURN_NOT_OK(UploadVersion(new_version));
    WEIR_RETURN_NOT_OK(
        ApplyRetention(remote_fs_, remote_dir_, new_version, options_.versions_to_retain));
    counters_.commit_file_sync_ms += ElapsedMs(upload_start);
    WEIR_RETURN_NOT_OK(
        ApplyRetention(fs_, dir_, new_version, options_.cached_versions_to_retain));
  } else {
    WEIR_RETURN_NOT_OK(ApplyRetention(fs_, dir_, new_version, options_.versions_to_retain));
  }
  version_ = new_version;
  loaded_schema_ = options_.schema;
  counters_.commit_time_ms = ElapsedMs(start);
  ResetCounters();
  return Status::OK();
}

Status StateStore::WriteVersion(int64_t new_version) {
  auto start = std::chrono::steady_clock::now();
  std::string name = std::to_string(new_version);
  std::string tmp = fs::JoinPath(dir_, std::string(kTempPrefix) + name);
  WEIR_RETURN_NOT_OK(DeleteIfExists(fs_, tmp, /*dir=*/true));
  WEIR_RETURN_NOT_OK(DeleteIfExists(fs_, tmp + ".tmp", /*dir=*/true));  // RocksDB's staging folder
  rocksdb::Checkpoint* raw = nullptr;
  WEIR_RETURN_NOT_OK(FromRocks(rocksdb::Checkpoint::Create(db_.get(), &raw), "checkpoint", dir_));
  std::unique_ptr<rocksdb::Checkpoint> checkpoint(raw);
  // Hard-links the SST files, copies and fsyncs MANIFEST/CURRENT/OPTIONS, fsyncs the folder.
  WEIR_RETURN_NOT_OK(
      FromRocks(checkpoint->CreateCheckpoint(tmp, /*log_size_for_flush=*/0), "checkpoint", tmp));
  counters_.commit_checkpoint_ms = ElapsedMs(start);

  start = std::chrono::steady_clock::now();
  Marker marker{new_version, num_rows_, options_.schema};
  WEIR_RETURN_NOT_OK(fs_->PutIfAbsent(fs::JoinPath(tmp, kMarkerName), SerializeMarker(marker)));
  std::string vdir = fs::JoinPath(dir_, name);
  WEIR_ASSIGN_OR_RETURN(bool exists, fs_->Exists(vdir));
  if (exists) WEIR_RETURN_NOT_OK(DeleteVersion(fs_, dir_, new_version));  // a re-run's earlier try
  WEIR_RETURN_NOT_OK(fs_->Rename(tmp, vdir));
  WEIR_RETURN_NOT_OK(fs_->SyncDir(dir_));
  counters_.commit_file_sync_ms = ElapsedMs(start);
  return Status::OK();
}

Status StateStore::DeleteVersion(fs::FileSystem* fs, const std::string& dir, int64_t version) {
  std::string vdir = fs::JoinPath(dir, std::to_string(version));
  // The marker goes first: a half-deleted folder then reads as incomplete, never as valid.
  WEIR_RETURN_NOT_OK(DeleteIfExists(fs, fs::JoinPath(vdir, kMarkerName), /*dir=*/false));
  return DeleteIfExists(fs, vdir, /*dir=*/true);
}

Status StateStore::ApplyRetention(fs::FileSystem* fs, const std::string& dir, int64_t new_version,
                                  int64_t retain) {
  WEIR_ASSIGN_OR_RETURN(std::vector<int64_t> versions, ListVersions(fs, dir));
  for (int64_t v : versions) {
    // Versions above new_version belong to a run that never committed them in the query log.
    if (v <= new_version - retain || v > new_version) {
      WEIR_RETURN_NOT_OK(DeleteVersion(fs, dir, v));
    }
  }
  return Status::OK();
}

Status StateStore::UploadVersion(int64_t version) {
  std::string name = std::to_string(version);
  std::string local = fs::JoinPath(dir_, name);
  std::string remote = fs::JoinPath(remote_dir_, name);
  // A re-run batch's earlier upload (complete or not) is replaced, marker first.
  WEIR_RETURN_NOT_OK(DeleteVersion(remote_fs_, remote_dir_, version));
  WEIR_RETURN_NOT_OK(remote_fs_->CreateDirs(remote));
  WEIR_ASSIGN_OR_RETURN(auto files, VersionFiles(fs_, local));
  for (const auto& [file, size] : files) {
    (void)size;
    Status copied = CopyFile(fs_, fs::JoinPath(local, file), remote_fs_, fs::JoinPath(remote, file));
    if (!copied.ok()) return copied.WithContext("upload state version " + name + " to " + remote);
  }
  // The marker last: only a version whose every file is in place is complete.
  WEIR_ASSIGN_OR_RETURN(std::string marker,
                        fs::ReadFileToString(fs_, fs::JoinPath(local, kMarkerName)));
  WEIR_RETURN_NOT_OK(remote_fs_->WriteAtomic(fs::JoinPath(remote, kMarkerName), marker));
  return remote_fs_->SyncDir(remote);
}

Status StateStore::FetchVersion(int64_t version) {
  std::string name = std::to_string(version);
  std::string remote = fs::JoinPath(remote_dir_, name);
  std::string remote_marker = fs::JoinPath(remote, kMarkerName);
  Result<std::string> marker = fs::ReadFileToString(remote_fs_, remote_marker);
  if (!marker.ok()) {
    if (!marker.status().IsNotFound()) return marker.status();
    auto listed = remote_fs_->List(remote);
    if (listed.ok() && !listed->empty()) {
      return Status::Corruption("State version " + name + " in " + remote +
                                " is incomplete (no " + std::string(kMarkerName) +
                                "). Restore the folder or start the query with a new checkpoint");
    }
    return Status::Corruption("State version " + name + " is missing: " + remote +
                              " does not exist. The checkpoint's state was deleted or damaged; "
                              "restore it or start the query with a new checkpoint");
  }
  WEIR_ASSIGN_OR_RETURN(auto remote_files, VersionFiles(remote_fs_, remote));
  // The cache holds this version already when its marker and files (names, sizes) match.
  std::string local = fs::JoinPath(dir_, name);
  Result<std::string> cached_marker = fs::ReadFileToString(fs_, fs::JoinPath(local, kMarkerName));
  if (cached_marker.ok() && *cached_marker == *marker) {
    auto cached_files = VersionFiles(fs_, local);
    if (cached_files.ok() && *cached_files == remote_files) return Status::OK();
  }
  std::string tmp = fs::JoinPath(dir_, std::string(kTempPrefix) + "fetch-" + name);
  WEIR_RETURN_NOT_OK(DeleteIfExists(fs_, tmp, /*dir=*/true));
  WEIR_RETURN_NOT_OK(fs_->CreateDirs(tmp));
  for (const auto& [file, size] : remote_files) {
    std::string from = fs::JoinPath(remote, file);
    Status copied = CopyFile(remote_fs_, from, fs_, fs::JoinPath(tmp, file));
    if (!copied.ok()) return copied.WithContext("download state version " + name);
    WEIR_ASSIGN_OR_RETURN(fs::FileInfo info, fs_->GetFileInfo(fs::JoinPath(tmp, file)));
    if (info.size != size) {
      return Status::IOError("download state version " + name + ": " + from + " changed while " +
                             "it was read (another query may be using this checkpoint)");
    }
  }
  WEIR_RETURN_NOT_OK(fs_->PutIfAbsent(fs::JoinPath(tmp, kMarkerName), *marker));
  WEIR_RETURN_NOT_OK(DeleteVersion(fs_, dir_, version));
  return fs_->Rename(tmp, local);
}

Status StateStore::Abort() { return Load(version_); }

StateStoreMetrics StateStore::metrics() const {
  StateStoreMetrics m = counters_;
  m.num_rows_total = num_rows_;
  if (db_ != nullptr) {
    uint64_t memtables = 0;
    uint64_t readers = 0;
    uint64_t sst = 0;
    db_->GetIntProperty(rocksdb::DB::Properties::kCurSizeAllMemTables, &memtables);
    db_->GetIntProperty(rocksdb::DB::Properties::kEstimateTableReadersMem, &readers);
    db_->GetIntProperty(rocksdb::DB::Properties::kTotalSstFilesSize, &sst);
    uint64_t pending = pending_.memory_bytes() + pending_index_.memory_bytes() +
                       writing_.memory_bytes() + writing_index_.memory_bytes();
    m.memory_used_bytes =
        static_cast<int64_t>(memtables + readers + block_cache_->GetUsage() + pending);
    m.sst_file_bytes = static_cast<int64_t>(sst);
  }
  return m;
}

Result<std::vector<int64_t>> StateStore::ListVersions(fs::FileSystem* fs, const std::string& dir) {
  WEIR_ASSIGN_OR_RETURN(std::vector<fs::FileInfo> entries, fs->List(dir));
  std::vector<int64_t> versions;
  for (const fs::FileInfo& e : entries) {
    int64_t v = 0;
    if (e.is_dir && ParseVersionName(fs::BaseName(e.path), &v)) versions.push_back(v);
  }
  std::sort(versions.begin(), versions.end());
  return versions;
}

}  // namespace weir::stream
