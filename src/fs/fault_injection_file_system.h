// FaultInjectionFileSystem: a FileSystem wrapper for tests that fails chosen calls (EIO or ENOSPC),
// makes them take effect and then report a failure (an ambiguous outcome: a write whose
// acknowledgement was lost), and simulates a machine crash by dropping whatever was not made
// durable (leveldb's db/fault_injection_test.cc and velox's FaultyFileSystem in spirit).
// Thread-safe: one mutex serialises every call, including the wrapped file system's I/O.
// REQUIRES: the wrapped FileSystem outlives this object, and this object outlives every file
// opened through it.
//
// Crash model (SimulateCrash()), for files written through this wrapper since the last Reset():
//  * File contents are durable up to the size at the file's last successful Sync(); the rest is
//    cut off. OpenForWrite() of an existing file counts as truncating it to 0 durable bytes.
//  * A file's directory entry is durable if the file existed before this wrapper first opened it
//    for write, or once SyncDir() of its parent directory succeeds afterwards. A file whose entry
//    is not durable is deleted, synced data or not. (Options::drop_unsynced_directory_entries =
//    false keeps such files, truncated as above.)
//  * Rename()/RenameNoReplace() are undone unless SyncDir() of the destination's directory
//    succeeded afterwards; a file the rename replaced gets its old content back.
//  * PutIfAbsent() and WriteAtomic() are atomic and durable when they return OK: the file is there
//    complete or, if the call failed or was failed by a rule, not changed at all.
//  * Delete(), DeleteDirRecursive() and CreateDirs() are durable at once (a crash never brings a
//    deleted file back nor removes a created directory).
//  * Open WritableFiles lose their buffered data and fail every later call.
// After SimulateCrash() every call (on the file system and on files opened before) fails with
// IOError until Reset().
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "fs/file_system.h"

namespace weir::fs {

// Every fallible call the wrapper can count and fail.
enum class FileOp : int {
  kOpenRead = 0,
  kRead,      // RandomAccessFile::ReadAt
  kFileSize,  // RandomAccessFile::Size
  kOpenWrite,
  kAppend,  // WritableFile::Append
  kSync,    // WritableFile::Sync
  kClose,   // WritableFile::Close (the file is closed even when the call fails)
  kPutIfAbsent,
  kWriteAtomic,
  kRename,
  kRenameNoReplace,
  kDelete,
  kDeleteDirRecursive,
  kCreateDirs,
  kExists,
  kGetFileInfo,
  kList,
  kSyncDir,
};
inline constexpr int kFileOpCount = static_cast<int>(FileOp::kSyncDir) + 1;

// "append", "put-if-absent", ...
std::string_view FileOpName(FileOp op);

// The errno an injected failure reports; the IOError message carries its text ("Input/output error"
// or "No space left on device") and the word "injected".
enum class InjectedError { kEIO, kENOSPC };

// What a rule does to the call it fires on.
enum class FaultMode {
  kFail,                // the call does nothing and returns the error
  kTakeEffectThenFail,  // the call is carried out in full, then returns the error (a lost reply)
  kCrashAfter,          // the call is carried out and returns its result, then SimulateCrash()
};

struct FaultRule {
  std::optional<FileOp> op;    // nullopt: calls of every kind match
  std::string path_substring;  // empty: any path; else the call's path (either path of a rename)
                               // must contain it
  int64_t nth = 1;             // the first failing call, counting matching calls from AddRule (1 =
                               // the next matching call)
  bool every_call_from_nth = false;  // false: only the nth matching call fails
  InjectedError error = InjectedError::kEIO;
  FaultMode mode = FaultMode::kFail;
  // After the rule fires, this many read calls (open for read, read, size, exists, stat) of the
  // paths the call touched fail with EIO too: a store that stays unreachable for a while, so
  // that reading back what was written cannot settle the outcome.
  int64_t then_fail_reads = 0;
};

class FaultInjectionFileSystem final : public FileSystem {
 public:
  struct Options {
    bool drop_unsynced_directory_entries = true;
  };

  explicit FaultInjectionFileSystem(FileSystem* base) : FaultInjectionFileSystem(base, Options{}) {}
  FaultInjectionFileSystem(FileSystem* base, Options options);
  ~FaultInjectionFileSystem() override;

  // --- Failure rules. A failed call does nothing (no partial effect) and returns the IOError,
  // unless its rule's mode says otherwise (FaultMode). ---
  void AddRule(FaultRule rule);
  // Fails the nth call of kind `op` from now (whose path contains `path_substring`, if not empty).
  void FailNthCall(FileOp op, int64_t n, InjectedError error = InjectedError::kEIO,
                   std::string path_substring = {});
  // Fails every call of kind `op` from now on.
  void FailEveryCall(FileOp op, InjectedError error = InjectedError::kEIO,
                     std::string path_substring = {});
  // Fails the nth call of any kind from now: run a scenario once, read TotalCallCount(), then
  // rerun it failing call k for every k in 1..count.
  void FailNthCallOfAnyKind(int64_t n, InjectedError error = InjectedError::kEIO);
  // The nth call of any kind from now is treated as `mode` says (with EIO), and then
  // `then_fail_reads` reads of its paths fail.
  void InjectNthCallOfAnyKind(int64_t n, FaultMode mode, int64_t then_fail_reads = 0);
  void ClearRules();

  // --- Counters: calls made (including failed ones) since construction, Reset() or ResetCounters.
  int64_t CallCount(FileOp op) const;
  int64_t TotalCallCount() const;
  int64_t InjectedFailureCount() const;
  // The kind of every call counted so far, in order (call n is CallLog()[n - 1]).
  std::vector<FileOp> CallLog() const;
  void ResetCounters();

  // --- Crash simulation (model in the file comment). ---
  // Drops non-durable data on the wrapped file system and refuses further calls. Returns an error
  // only if the wrapped file system failed while rolling back.
  Status SimulateCrash();
  // Accepts calls again; forgets rules, counters and tracked files (what is on disk now counts as
  // durable).
  void Reset();
  bool crashed() const;

  Result<std::unique_ptr<RandomAccessFile>> OpenForRead(const std::string& path) override;
  Result<std::unique_ptr<WritableFile>> OpenForWrite(const std::string& path) override;
  Status PutIfAbsent(const std::string& path, std::string_view data) override;
  Status WriteAtomic(const std::string& path, std::string_view data) override;
  Status Rename(const std::string& from, const std::string& to) override;
  Status RenameNoReplace(const std::string& from, const std::string& to) override;
  Status Delete(const std::string& path) override;
  Status DeleteDirRecursive(const std::string& path) override;
  Status CreateDirs(const std::string& path) override;
  Result<bool> Exists(const std::string& path) override;
  Result<FileInfo> GetFileInfo(const std::string& path) override;
  Result<std::vector<FileInfo>> List(const std::string& dir) override;
  Status SyncDir(const std::string& path) override;

 private:
  class FaultRandomAccessFile;
  class FaultWritableFile;
  friend class FaultRandomAccessFile;
  friend class FaultWritableFile;

  struct RuleState {
    FaultRule rule;
    int64_t matched = 0;
  };
  // What the crash model knows about a file written through the wrapper.
  struct TrackedFile {
    int64_t synced_size = 0;
    bool entry_durable = false;
  };
  struct PendingRename {
    std::string from;
    std::string to;
    std::optional<std::string> replaced_content;   // `to`'s content before the rename
    std::optional<TrackedFile> replaced_tracking;  // `to`'s crash-model state before the rename
  };

  // What the rules decided for one call.
  struct Injection {
    Status before;  // not OK: return it without carrying out the call
    std::optional<FaultRule> after;  // a kTakeEffectThenFail / kCrashAfter rule that fired
    std::string path;
    std::string other_path;
  };
  // Counts the call and decides what the rules do to it (a failure before it, or after it), or
  // returns the crashed error. REQUIRES: mutex_ held.
  Injection BeforeCall(FileOp op, std::string_view path, std::string_view other_path = {});
  // The call's result once carried out: `result` itself, or the injected error of a
  // kTakeEffectThenFail rule (arming its read failures), or `result` after a simulated crash.
  // REQUIRES: mutex_ held.
  Status AfterCall(FileOp op, const Injection& injection, Status result);
  Status InjectedStatus(FileOp op, std::string_view shown, InjectedError error,
                        std::string_view note);
  void RenamedLocked(const std::string& from, const std::string& to,
                     std::optional<std::string> replaced_content);
  void ForgetLocked(const std::string& path, bool recursive);
  // Marks entries in `dir` durable: tracked files' names and renames into it.
  void DirSyncedLocked(const std::string& dir);
  Status RollBackLocked();

  FileSystem* const base_;
  const Options options_;

  mutable std::mutex mutex_;
  bool crashed_ = false;                              // GUARDED_BY(mutex_)
  std::vector<RuleState> rules_;                      // GUARDED_BY(mutex_)
  int64_t call_counts_[kFileOpCount] = {};            // GUARDED_BY(mutex_)
  std::vector<FileOp> call_log_;                      // GUARDED_BY(mutex_)
  int64_t injected_failures_ = 0;                     // GUARDED_BY(mutex_)
  std::map<std::string, int64_t> failing_reads_;      // GUARDED_BY(mutex_) path -> reads left
  std::map<std::string, TrackedFile> tracked_;        // GUARDED_BY(mutex_)
  std::vector<PendingRename> pending_renames_;        // GUARDED_BY(mutex_)
  std::set<FaultWritableFile*> open_writable_files_;  // GUARDED_BY(mutex_)
};

}  // namespace weir::fs
