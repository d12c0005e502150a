// StateStore: a stateful operator's versioned key-value state, backed by RocksDB, in the query's
// checkpoint at state/<operatorId>/0/ (docs/state-format.md). Open(V) loads the state committed by
// batch V; updates become durable, atomically, only with Commit(V + 1); Abort() or a crash discards
// them. Keys are ordered bytewise; a second "index" keyspace holds uncounted secondary entries.
// Not thread-safe: one thread uses a store; one process opens a folder at a time (LOCK). Inside,
// a full buffer of updates is written to RocksDB on a thread of its own while the next fills.
// Remote state (the checkpoint on object storage, e.g. an Azure URL): RocksDB works in a local
// cache folder, and each committed version is uploaded to <dir>/<version>/ with the marker last;
// Open(V) downloads version V unless the cache already holds exactly it.
#pragma once

#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "fs/file_system.h"
#include "stream/update_buffer.h"

namespace rocksdb {
class Cache;
class DB;
class Iterator;
}  // namespace rocksdb

namespace weir::stream {

// "<checkpoint>/state/<operator_id>/0": Spark's folder for an operator's (only) partition.
std::string StateStoreDir(std::string_view checkpoint_dir, int64_t operator_id);

struct StateStoreOptions {
  // Committed versions kept (Spark's spark.sql.streaming.minBatchesToRetain).
  int64_t versions_to_retain = 100;
  // RocksDB memory: LRU block cache (data, index and filter blocks) and one memtable (two at most
  // while one flushes).
  size_t block_cache_bytes = size_t{8} << 20;
  size_t write_buffer_bytes = size_t{32} << 20;
  // Updates are kept in memory (and answered from there) until they hold this many bytes of keys
  // and values, then written to the working database as one sorted SST file. A buffer takes about
  // three times its bytes (its entries and hash table: ~56 bytes an update besides the bytes), and
  // two are alive while one is written; 8 MiB rather than 16: silver's 2M-row backfill ran ~5%
  // faster in ~90 MiB less memory.
  size_t pending_bytes = size_t{8} << 20;
  // What the operator stores (key and value layout), recorded with every version. Opening a version
  // recorded with a different schema fails with InvalidArgument, except with `upgradable_schema`
  // (when not empty): an earlier layout the operator converts after Open (loaded_schema() says
  // which one was loaded); the next Commit records `schema`.
  std::string schema;
  std::string upgradable_schema;
  // The state is remote when the store's `dir` is a URL ("scheme://...") or this is set: RocksDB
  // then works in this local folder (empty: $TMPDIR/weir-state-cache/<hash of dir>), and the
  // store's `fs` only receives the committed versions' files.
  std::string local_cache_dir;
  // Versions kept in the local cache folder of a remote store (the remote keeps
  // versions_to_retain).
  int64_t cached_versions_to_retain = 2;
  // Tests: called on a background write-out's thread before it writes (to hold it back).
  std::function<void()> before_background_write;
};

// What the store did since it was opened or last committed/aborted, and its size now.
struct StateStoreMetrics {
  int64_t num_rows_total = 0;     // rows keyspace, exact
  int64_t num_rows_updated = 0;   // Put() calls on the rows keyspace
  int64_t num_rows_removed = 0;   // Remove() calls that removed an existing row
  int64_t memory_used_bytes = 0;  // memtables + table readers + block cache (RocksDB properties)
                                  // + pending updates
  int64_t sst_file_bytes = 0;     // rocksdb.total-sst-files-size
  int64_t get_count = 0;  // point lookups that reached RocksDB (Get, Contains, Put/Remove's own)
  int64_t put_count = 0;  // updates (puts and removals), written to RocksDB in batches
  // The last Commit(): total, memtable flush, RocksDB checkpoint, marker + rename + folder sync.
  int64_t commit_time_ms = 0;
  int64_t commit_flush_ms = 0;
  int64_t commit_checkpoint_ms = 0;
  int64_t commit_file_sync_ms = 0;
};

class StateStore {
 public:
  enum class Keyspace : uint8_t {
    kRows,   // the operator's rows, counted in num_rows_total
    kIndex,  // secondary entries (e.g. eviction order), not counted
  };

  // An ordered cursor over one keyspace, over the store as it was when the cursor was made
  // (later Put/Remove calls do not show). key() and value() stay valid until the next Next().
  // REQUIRES: the store outlives the cursor, and no Commit/Abort happens while it lives.
  class Cursor {
   public:
    ~Cursor();
    bool Valid() const;
    void Next();
    std::string_view key() const;  // without the keyspace byte
    std::string_view value() const;
    // Corruption / IOError if reading failed (then Valid() is false).
    Status status() const;

   private:
    friend class StateStore;
    struct Impl;
    Cursor();
    std::unique_ptr<Impl> impl_;
  };

  // Opens the store in `dir` (created if absent) at `version`: the state committed by batch
  // `version`, or empty for -1. `fs` is used for every file operation outside RocksDB and must be
  // the local file system (RocksDB needs a local folder) unless the state is remote (see
  // StateStoreOptions::local_cache_dir); it must outlive the store.
  // Errors: Corruption naming the folder when the version is missing or damaged; InvalidArgument
  // for a version < -1 or a different schema; IOError (e.g. the folder is locked by another store).
  static Result<std::unique_ptr<StateStore>> Open(fs::FileSystem* fs, std::string dir,
                                                  int64_t version, StateStoreOptions options = {});
  ~StateStore();
  StateStore(const StateStore&) = delete;
  StateStore& operator=(const StateStore&) = delete;

  // The folder given to Open (the remote one for a remote store).
  const std::string& dir() const { return remote_fs_ != nullptr ? remote_dir_ : dir_; }
  // Where RocksDB works: dir(), or the local cache folder of a remote store.
  const std::string& local_dir() const { return dir_; }
  // The version loaded or last committed (-1: none yet).
  int64_t version() const { return version_; }
  // The schema recorded with the loaded version: options.schema, or options.upgradable_schema
  // until the next Commit. options.schema for an empty store.
  const std::string& loaded_schema() const { return loaded_schema_; }

  Result<std::optional<std::string>> Get(std::string_view key, Keyspace keyspace = Keyspace::kRows);
  Result<bool> Contains(std::string_view key, Keyspace keyspace = Keyspace::kRows);
  // Inserts or replaces. On the rows keyspace the store looks the key up first to keep
  // num_rows_total exact, unless `known_absent` says the caller just found it absent.
  // REQUIRES (known_absent): Contains(key) returned false and key was not written since.
  Status Put(std::string_view key, std::string_view value, Keyspace keyspace = Keyspace::kRows,
             bool known_absent = false);
  // Removes the key if present (no error if absent). On the rows keyspace the store looks the key
  // up first to keep num_rows_total exact, unless `known_present` says the caller knows it is
  // there (e.g. from an index entry). REQUIRES (known_present): the key is present.
  Status Remove(std::string_view key, Keyspace keyspace = Keyspace::kRows,
                bool known_present = false);
  // A hint that `key` is about to be Put, Removed or looked up: starts loading the slot of the
  // pending updates' table that it maps to into the cache (RocksDB is not touched), so that a
  // caller walking many keys can overlap their cache misses. No effect on the state.
  void Prefetch(std::string_view key, Keyspace keyspace = Keyspace::kRows);
  // Keys k with lower <= k < upper (no upper bound when nullopt), in order.
  Result<std::unique_ptr<Cursor>> Scan(Keyspace keyspace, std::string_view lower = {},
                                       std::optional<std::string_view> upper = std::nullopt);

  // Makes every update durable as `new_version` (the id of the batch that made them), atomically;
  // then deletes versions outside the retained window. REQUIRES: new_version > version().
  // On error the store stays at version(): call Abort() (or drop the store) and re-run the
  // batch; a version folder written before the error is replaced when that version commits.
  Status Commit(int64_t new_version);
  // Discards the updates since the last Open/Commit: the store is back at version().
  Status Abort();

  // Counters since the last Open/Commit/Abort (the commit timings: of the last Commit), and the
  // current total and memory. Reads RocksDB properties; cheap.
  StateStoreMetrics metrics() const;

  // Committed versions present in `dir` (complete or not), ascending. NotFound if `dir` is absent.
  static Result<std::vector<int64_t>> ListVersions(fs::FileSystem* fs, const std::string& dir);

 private:
  StateStore(fs::FileSystem* fs, std::string dir, StateStoreOptions options);
  Status Load(int64_t version);
  Status OpenWorkingDb(bool create);
  void CloseDb();
  Status WriteVersion(int64_t new_version);
  Status ApplyRetention(fs::FileSystem* fs, const std::string& dir, int64_t new_version,
                        int64_t retain);
  static Status DeleteVersion(fs::FileSystem* fs, const std::string& dir, int64_t version);
  // Remote stores: makes the cache's version folder a copy of the remote one (Corruption if the
  // remote version is missing or incomplete), and uploads a committed local version.
  Status FetchVersion(int64_t version);
  Status UploadVersion(int64_t version);
  void ResetCounters();
  // Updates collect in pending_ (rows keyspace) and pending_index_ first; lookups check pending_
  // first. When they hold options.pending_bytes, they become writing_ and writing_index_ and are
  // written to RocksDB on another thread while pending_ and pending_index_ fill again (lookups
  // check writing_ next); ApplyPending writes everything now (building the pending buffers' file
  // while writing_'s is finished, ingesting it after). Index updates are never looked up
  // in memory (a lookup of the index keyspace writes them out first), so pending_index_ is
  // append-only: adding one costs no random memory access.
  Status AddPending(Keyspace keyspace, bool is_put, std::string_view value);
  Status StartWriting();
  // Waits for the write of writing_ (if any) and returns its status.
  Status FinishWriting();
  Status ApplyPending();
  const UpdateBuffer::Update* FindPending(std::string_view key) const;
  // Writes the updates to RocksDB: one ingested SST file, or a write batch when small. Uses only
  // db_ and the folder, so it may run on another thread while the store is used.
  Status WriteOut(const UpdateBuffer& index_updates, const UpdateBuffer& row_updates);
  // The last update of every key of both buffers, in the database's key order.
  static std::vector<const UpdateBuffer::Update*> SortedUpdates(const UpdateBuffer& index_updates,
                                                                const UpdateBuffer& row_updates);
  // Writes `sorted` as the SST file `file`; IngestSstFile moves it into the working database
  // (its updates replace older ones of the same keys).
  Status BuildSstFile(const std::vector<const UpdateBuffer::Update*>& sorted,
                      const std::string& file);
  Status IngestSstFile(const std::string& file);

  fs::FileSystem* fs_;  // the local file system of dir_
  std::string dir_;     // RocksDB's folder (the local cache folder of a remote store)
  // Remote stores only: where committed versions are kept.
  fs::FileSystem* remote_fs_ = nullptr;
  std::string remote_dir_;
  StateStoreOptions options_;
  int64_t version_ = -1;
  std::string loaded_schema_;
  int64_t num_rows_ = 0;
  StateStoreMetrics counters_;
  std::shared_ptr<rocksdb::Cache> block_cache_;
  std::unique_ptr<rocksdb::DB> db_;
  struct Lock;
  std::unique_ptr<Lock> lock_;
  std::string key_buffer_;  // keyspace byte + key, reused
  // Keys with the keyspace byte. writing_ and writing_index_ are being written by
  // writing_result_'s thread: read-only meanwhile.
  UpdateBuffer pending_;
  UpdateBuffer pending_index_{UpdateBuffer::Lookup::kAppendOnly};
  UpdateBuffer writing_;
  UpdateBuffer writing_index_{UpdateBuffer::Lookup::kAppendOnly};
  std::future<Status> writing_result_;
};

}  // namespace weir::stream
