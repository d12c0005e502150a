#include "fs/fault_injection_file_system.h"

#include <cerrno>
#include <utility>

namespace weir::fs {
namespace {

std::string_view StripTrailingSlashes(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  return path;
}

bool IsUnder(std::string_view path, std::string_view dir) {
  dir = StripTrailingSlashes(dir);
  return path.size() > dir.size() && path.starts_with(dir) && path[dir.size()] == '/';
}

Status CrashedError(std::string_view operation, std::string_view path) {
  return Status::IOError(std::string(operation) + " " + std::string(path) +
                         ": the file system has crashed (fault injection); call Reset() first");
}

}  // namespace

std::string_view FileOpName(FileOp op) {
  switch (op) {
    case FileOp::kOpenRead:
      return "open for read";
    case FileOp::kRead:
      return "read";
    case FileOp::kFileSize:
      return "size of";
    case FileOp::kOpenWrite:
      return "open for write";
    case FileOp::kAppend:
      return "append to";
    case FileOp::kSync:
      return "sync";
    case FileOp::kClose:
      return "close";
    case FileOp::kPutIfAbsent:
      return "put-if-absent";
    case FileOp::kWriteAtomic:
      return "write-atomic";
    case FileOp::kRename:
      return "rename";
    case FileOp::kRenameNoReplace:
      return "rename-no-replace";
    case FileOp::kDelete:
      return "delete";
    case FileOp::kDeleteDirRecursive:
      return "delete directory";
    case FileOp::kCreateDirs:
      return "create directories";
    case FileOp::kExists:
      return "exists";
    case FileOp::kGetFileInfo:
      return "stat";
    case FileOp::kList:
      return "list";
    case FileOp::kSyncDir:
      return "sync directory";
  }
  return "unknown operation";
}

// ---------------------------------------------------------------------------------------------
// Files

class FaultInjectionFileSystem::FaultRandomAccessFile final : public RandomAccessFile {
 public:
  FaultRandomAccessFile(FaultInjectionFileSystem* fs, std::unique_ptr<RandomAccessFile> base)
      : RandomAccessFile(base->path()), fs_(fs), base_(std::move(base)) {}

  Result<int64_t> Size() override {
    std::lock_guard<std::mutex> lock(fs_->mutex_);
    Injection injection = fs_->BeforeCall(FileOp::kFileSize, path());
    WEIR_RETURN_NOT_OK(injection.before);
    Result<int64_t> size = base_->Size();
    WEIR_RETURN_NOT_OK(fs_->AfterCall(FileOp::kFileSize, injection, size.status()));
    return size;
  }

  Status ReadAt(int64_t offset, int64_t length, uint8_t* out) override {
    std::lock_guard<std::mutex> lock(fs_->mutex_);
    Injection injection = fs_->BeforeCall(FileOp::kRead, path());
    WEIR_RETURN_NOT_OK(injection.before);
    return fs_->AfterCall(FileOp::kRead, injection, base_->ReadAt(offset, length, out));
  }

 private:
  FaultInjectionFileSystem* const fs_;
  const std::unique_ptr<RandomAccessFile> base_;
};

class FaultInjectionFileSystem::FaultWritableFile final : public WritableFile {
 public:
  FaultWritableFile(FaultInjectionFileSystem* fs, std::unique_ptr<WritableFile> base)
      : WritableFile(base->path()), fs_(fs), base_(std::move(base)) {}

  ~FaultWritableFile() override {
    std::lock_guard<std::mutex> lock(fs_->mutex_);
    fs_->open_writable_files_.erase(this);
    base_.reset();
  }

  Status Append(std::string_view data) override {
    std::lock_guard<std::mutex> lock(fs_->mutex_);
    Injection injection = fs_->BeforeCall(FileOp::kAppend, path());
    WEIR_RETURN_NOT_OK(injection.before);
    WEIR_RETURN_NOT_OK(CheckAlive(FileOp::kAppend));
    Status status = base_->Append(data);
    size_ = base_->Size();
    return fs_->AfterCall(FileOp::kAppend, injection, status);
  }

  Status Sync() override {
    std::lock_guard<std::mutex> lock(fs_->mutex_);
    Injection injection = fs_->BeforeCall(FileOp::kSync, path());
    WEIR_RETURN_NOT_OK(injection.before);
    WEIR_RETURN_NOT_OK(CheckAlive(FileOp::kSync));
    Status status = base_->Sync();
    if (status.ok()) {
      auto it = fs_->tracked_.find(path());
      if (it != fs_->tracked_.end()) it->second.synced_size = base_->Size();
    }
    return fs_->AfterCall(FileOp::kSync, injection, status);
  }

  Status Close() override {
    std::lock_guard<std::mutex> lock(fs_->mutex_);
    Injection injection = fs_->BeforeCall(FileOp::kClose, path());
    if (fs_->crashed_) return injection.before;
    WEIR_RETURN_NOT_OK(CheckAlive(FileOp::kClose));
    Status status = base_->Close();  // the descriptor is released even when the call "fails"
    if (!injection.before.ok()) return injection.before;
    return fs_->AfterCall(FileOp::kClose, injection, status);
  }

  int64_t Size() const override {
    std::lock_guard<std::mutex> lock(fs_->mutex_);
    return size_;
  }

  // Drops the wrapped file and its buffered data (a crash). REQUIRES: fs_->mutex_ held.
  void KillLocked() { base_.reset(); }

 private:
  Status CheckAlive(FileOp op) const {
    if (base_ == nullptr) {
      return Status::IOError(std::string(FileOpName(op)) + " " + path() +
                             ": the file was open when the file system crashed; reopen it");
    }
    return Status::OK();
  }

  FaultInjectionFileSystem* const fs_;
  std::unique_ptr<WritableFile> base_;  // null after a simulated crash
  int64_t size_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Rules and counters

FaultInjectionFileSystem::FaultInjectionFileSystem(FileSystem* base, Options options)
    : base_(base), options_(options) {}

FaultInjectionFileSystem::~FaultInjectionFileSystem() = default;

void FaultInjectionFileSystem::AddRule(FaultRule rule) {
  std::lock_guard<std::mutex> lock(mutex_);
  rules_.push_back(RuleState{std::move(rule), 0});
}

void FaultInjectionFileSystem::FailNthCall(FileOp op, int64_t n, InjectedError error,
                                           std::string path_substring) {
  AddRule(FaultRule{op, std::move(path_substring), n, false, error});
}

void FaultInjectionFileSystem::FailEveryCall(FileOp op, InjectedError error,
                                             std::string path_substring) {
  AddRule(FaultRule{op, std::move(path_substring), 1, true, error});
}

void FaultInjectionFileSystem::FailNthCallOfAnyKind(int64_t n, InjectedError error) {
  AddRule(FaultRule{std::nullopt, {}, n, false, error});
}

void FaultInjectionFileSystem::InjectNthCallOfAnyKind(int64_t n, FaultMode mode,
                                                      int64_t then_fail_reads) {
  AddRule(FaultRule{std::nullopt, {}, n, false, InjectedError::kEIO, mode, then_fail_reads});
}

void FaultInjectionFileSystem::ClearRules() {
  std::lock_guard<std::mutex> lock(mutex_);
  rules_.clear();
  failing_reads_.clear();
}

int64_t FaultInjectionFileSystem::CallCount(FileOp op) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return call_counts_[static_cast<int>(op)];
}

int64_t FaultInjectionFileSystem::TotalCallCount() const {
  std::lock_guard<std::mutex> lock(mutex_);
  int64_t total = 0;
  for (int64_t count : call_counts_) total += count;
  return total;
}

int64_t FaultInjectionFileSystem::InjectedFailureCount() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return injected_failures_;
}

std::vector<FileOp> FaultInjectionFileSystem::CallLog() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return call_log_;
}

void FaultInjectionFileSystem::ResetCounters() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (int64_t& count : call_counts_) count = 0;
  call_log_.clear();
  injected_failures_ = 0;
}

namespace {

bool IsReadOp(FileOp op) {
  return op == FileOp::kOpenRead || op == FileOp::kRead || op == FileOp::kFileSize ||
         op == FileOp::kExists || op == FileOp::kGetFileInfo;
}

}  // namespace

Status FaultInjectionFileSystem::InjectedStatus(FileOp op, std::string_view shown,
                                                InjectedError error, std::string_view note) {
  ++injected_failures_;
  int error_number = error == InjectedError::kENOSPC ? ENOSPC : EIO;
  Status status = StatusFromErrno(FileOpName(op), shown, error_number);
  return Status::IOError(status.message() + " [injected fault" + std::string(note) + "]");
}

FaultInjectionFileSystem::Injection FaultInjectionFileSystem::BeforeCall(
    FileOp op, std::string_view path, std::string_view other_path) {
  Injection injection;
  injection.path = path;
  injection.other_path = other_path;
  std::string shown(path);
  if (!other_path.empty()) {
    shown += " to ";
    shown += other_path;
  }
  if (crashed_) {
    injection.before = CrashedError(FileOpName(op), shown);
    return injection;
  }
  ++call_counts_[static_cast<int>(op)];
  call_log_.push_back(op);
  std::optional<FaultRule> fire;
  for (RuleState& state : rules_) {
    const FaultRule& rule = state.rule;
    if (rule.op.has_value() && *rule.op != op) continue;
    if (!rule.path_substring.empty() && path.find(rule.path_substring) == std::string_view::npos &&
        other_path.find(rule.path_substring) == std::string_view::npos) {
      continue;
    }
    ++state.matched;
    bool fails =
        state.matched == rule.nth || (rule.every_call_from_nth && state.matched > rule.nth);
    if (fails && !fire.has_value()) fire = rule;
  }
  if (IsReadOp(op) && !fire.has_value()) {
    auto it = failing_reads_.find(std::string(path));
    if (it != failing_reads_.end()) {
      if (--it->second <= 0) failing_reads_.erase(it);
      injection.before =
          InjectedStatus(op, shown, InjectedError::kEIO, ": reads of this path fail for a while");
      return injection;
    }
  }
  if (!fire.has_value()) return injection;
  if (fire->mode == FaultMode::kFail || IsReadOp(op) || op == FileOp::kList) {
    // A read that "takes effect" has nothing to show for it: it simply fails.
    if (fire->mode != FaultMode::kCrashAfter) {
      if (fire->then_fail_reads > 0) {
        failing_reads_[std::string(path)] += fire->then_fail_reads;
        if (!other_path.empty()) failing_reads_[std::string(other_path)] += fire->then_fail_reads;
      }
      injection.before = InjectedStatus(op, shown, fire->error, "");
      return injection;
    }
  }
  injection.after = std::move(fire);
  return injection;
}

Status FaultInjectionFileSystem::AfterCall(FileOp op, const Injection& injection, Status result) {
  if (!injection.after.has_value()) return result;
  const FaultRule& rule = *injection.after;
  if (rule.mode == FaultMode::kCrashAfter) {
    ++injected_failures_;
    crashed_ = true;
    static_cast<void>(RollBackLocked());
    return result;
  }
  if (rule.then_fail_reads > 0) {
    failing_reads_[injection.path] += rule.then_fail_reads;
    if (!injection.other_path.empty()) failing_reads_[injection.other_path] += rule.then_fail_reads;
  }
  std::string shown = injection.path;
  if (!injection.other_path.empty()) shown += " to " + injection.other_path;
  return InjectedStatus(op, shown, rule.error,
                        result.ok() ? ": the call took effect" : ": the call failed by itself");
}

// ---------------------------------------------------------------------------------------------
// Crash model bookkeeping

void FaultInjectionFileSystem::RenamedLocked(const std::string& from, const std::string& to,
                                             std::optional<std::string> replaced_content) {
  std::optional<TrackedFile> replaced_tracking;
  if (auto it = tracked_.find(to); it != tracked_.end()) {
    replaced_tracking = it->second;
    tracked_.erase(it);
  }
  auto node = tracked_.extract(from);
  if (!node.empty()) {
    node.key() = to;
    tracked_.insert(std::move(node));
  }
  if (options_.drop_unsynced_directory_entries) {
    pending_renames_.push_back(
        PendingRename{from, to, std::move(replaced_content), replaced_tracking});
  }
}

void FaultInjectionFileSystem::ForgetLocked(const std::string& path, bool recursive) {
  auto gone = [&](const std::string& p) { return p == path || (recursive && IsUnder(p, path)); };
  for (auto it = tracked_.begin(); it != tracked_.end();) {
    it = gone(it->first) ? tracked_.erase(it) : std::next(it);
  }
  std::erase_if(pending_renames_, [&](const PendingRename& r) { return gone(r.to); });
}

void FaultInjectionFileSystem::DirSyncedLocked(const std::string& dir) {
  std::string_view d = StripTrailingSlashes(dir);
  for (auto& [path, file] : tracked_) {
    if (DirName(path) == d) file.entry_durable = true;
  }
  std::erase_if(pending_renames_, [&](const PendingRename& r) { return DirName(r.to) == d; });
}

Status FaultInjectionFileSystem::RollBackLocked() {
  Status first_error;
  auto note = [&first_error](const Status& status) {
    if (!status.ok() && first_error.ok()) first_error = status;
  };
  for (FaultWritableFile* file : open_writable_files_) file->KillLocked();

  // Undo renames whose destination directory was never synced, newest first.
  for (auto it = pending_renames_.rbegin(); it != pending_renames_.rend(); ++it) {
    Result<bool> exists = base_->Exists(it->to);
    note(exists.status());
    if (exists.ok() && *exists) note(base_->Rename(it->to, it->from));
    auto node = tracked_.extract(it->to);
    if (!node.empty()) {
      node.key() = it->from;
      tracked_.insert(std::move(node));
    }
    if (it->replaced_content.has_value()) note(base_->WriteAtomic(it->to, *it->replaced_content));
    if (it->replaced_tracking.has_value()) tracked_[it->to] = *it->replaced_tracking;
  }
  pending_renames_.clear();

  // Cut every tracked file back to its synced size, or remove it if its entry is not durable.
  for (const auto& [path, file] : tracked_) {
    if (!file.entry_durable) {
      Status status = base_->Delete(path);
      if (!status.IsNotFound()) note(status);
      continue;
    }
    Result<FileInfo> info = base_->GetFileInfo(path);
    if (!info.ok()) {
      if (!info.status().IsNotFound()) note(info.status());
      continue;
    }
    if (info->is_dir || info->size <= file.synced_size) continue;
    std::string durable(static_cast<size_t>(file.synced_size), '\0');
    if (file.synced_size > 0) {
      Result<std::unique_ptr<RandomAccessFile>> reader = base_->OpenForRead(path);
      if (!reader.ok()) {
        note(reader.status());
        continue;
      }
      Status read =
          (*reader)->ReadAt(0, file.synced_size, reinterpret_cast<uint8_t*>(durable.data()));
      if (!read.ok()) {
        note(read);
        continue;
      }
    }
    note(WriteStringToFile(base_, path, durable, /*sync=*/true));
  }
  tracked_.clear();
  return first_error;
}

Status FaultInjectionFileSystem::SimulateCrash() {
  std::lock_guard<std::mutex> lock(mutex_);
  crashed_ = true;
  return RollBackLocked();
}

void FaultInjectionFileSystem::Reset() {
  std::lock_guard<std::mutex> lock(mutex_);
  crashed_ = false;
  rules_.clear();
  failing_reads_.clear();
  for (int64_t& count : call_counts_) count = 0;
  call_log_.clear();
  injected_failures_ = 0;
  tracked_.clear();
  pending_renames_.clear();
}

bool FaultInjectionFileSystem::crashed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return crashed_;
}

// ---------------------------------------------------------------------------------------------
// FileSystem

Result<std::unique_ptr<RandomAccessFile>> FaultInjectionFileSystem::OpenForRead(
    const std::string& path) {
  std::lock_guard<std::mutex> lock(mutex_);
  Injection injection = BeforeCall(FileOp::kOpenRead, path);
  WEIR_RETURN_NOT_OK(injection.before);
  Result<std::unique_ptr<RandomAccessFile>> file = base_->OpenForRead(path);
  WEIR_RETURN_NOT_OK(AfterCall(FileOp::kOpenRead, injection, file.status()));
  return std::unique_ptr<RandomAccessFile>(
      std::make_unique<FaultRandomAccessFile>(this, std::move(*file)));
}

Result<std::unique_ptr<WritableFile>> FaultInjectionFileSystem::OpenForWrite(
    const std::string& path) {
  // A file created but never handed to the caller is destroyed after the lock is released (its
  // destructor takes the lock).
  std::unique_ptr<FaultWritableFile> discarded;
  std::lock_guard<std::mutex> lock(mutex_);
  Injection injection = BeforeCall(FileOp::kOpenWrite, path);
  WEIR_RETURN_NOT_OK(injection.before);
  Result<bool> existed = base_->Exists(path);
  Result<std::unique_ptr<WritableFile>> file = base_->OpenForWrite(path);
  if (!file.ok()) return AfterCall(FileOp::kOpenWrite, injection, file.status());
  auto it = tracked_.find(path);
  if (it != tracked_.end()) {
    it->second.synced_size = 0;
  } else {
    bool durable = !options_.drop_unsynced_directory_entries || (existed.ok() && *existed);
    tracked_.emplace(path, TrackedFile{0, durable});
  }
  auto wrapped = std::make_unique<FaultWritableFile>(this, std::move(*file));
  open_writable_files_.insert(wrapped.get());
  Status after = AfterCall(FileOp::kOpenWrite, injection, Status::OK());
  if (!after.ok()) {
    // The file was created, but its caller never gets it.
    open_writable_files_.erase(wrapped.get());
    wrapped->KillLocked();
    discarded = std::move(wrapped);
    return after;
  }
  return std::unique_ptr<WritableFile>(std::move(wrapped));
}

Status FaultInjectionFileSystem::PutIfAbsent(const std::string& path, std::string_view data) {
  std::lock_guard<std::mutex> lock(mutex_);
  Injection injection = BeforeCall(FileOp::kPutIfAbsent, path);
  WEIR_RETURN_NOT_OK(injection.before);
  Status status = base_->PutIfAbsent(path, data);
  if (status.ok()) {
    ForgetLocked(path, /*recursive=*/false);
    DirSyncedLocked(DirName(path));  // the implementation synced the directory
  }
  return AfterCall(FileOp::kPutIfAbsent, injection, status);
}

Status FaultInjectionFileSystem::WriteAtomic(const std::string& path, std::string_view data) {
  std::lock_guard<std::mutex> lock(mutex_);
  Injection injection = BeforeCall(FileOp::kWriteAtomic, path);
  WEIR_RETURN_NOT_OK(injection.before);
  Status status = base_->WriteAtomic(path, data);
  if (status.ok()) {
    ForgetLocked(path, /*recursive=*/false);
    DirSyncedLocked(DirName(path));
  }
  return AfterCall(FileOp::kWriteAtomic, injection, status);
}

Status FaultInjectionFileSystem::Rename(const std::string& from, const std::string& to) {
  std::lock_guard<std::mutex> lock(mutex_);
  Injection injection = BeforeCall(FileOp::kRename, from, to);
  WEIR_RETURN_NOT_OK(injection.before);
  std::optional<std::string> replaced;
  if (options_.drop_unsynced_directory_entries) {
    Result<FileInfo> info = base_->GetFileInfo(to);
    if (info.ok() && !info->is_dir) {
      Result<std::string> content = ReadFileToString(base_, to);
      if (content.ok()) replaced = std::move(*content);
    }
  }
  Status status = base_->Rename(from, to);
  if (status.ok()) RenamedLocked(from, to, std::move(replaced));
  return AfterCall(FileOp::kRename, injection, status);
}

Status FaultInjectionFileSystem::RenameNoReplace(const std::string& from, const std::string& to) {
  std::lock_guard<std::mutex> lock(mutex_);
  Injection injection = BeforeCall(FileOp::kRenameNoReplace, from, to);
  WEIR_RETURN_NOT_OK(injection.before);
  Status status = base_->RenameNoReplace(from, to);
  if (status.ok()) RenamedLocked(from, to, std::nullopt);
  return AfterCall(FileOp::kRenameNoReplace, injection, status);
}

Status FaultInjectionFileSystem::Delete(const std::string& path) {
  std::lock_guard<std::mutex> lock(mutex_);
  Injection injection = BeforeCall(FileOp::kDelete, path);
  WEIR_RETURN_NOT_OK(injection.before);
  Status status = base_->Delete(path);
  if (status.ok()) ForgetLocked(path, /*recursive=*/false);
  return AfterCall(FileOp::kDelete, injection, status);
}

Status FaultInjectionFileSystem::DeleteDirRecursive(const std::string& path) {
  std::lock_guard<std::mutex> lock(mutex_);
  Injection injection = BeforeCall(FileOp::kDeleteDirRecursive, path);
  WEIR_RETURN_NOT_OK(injection.before);
  Status status = base_->DeleteDirRecursive(path);
  if (status.ok()) ForgetLocked(path, /*recursive=*/true);
  return AfterCall(FileOp::kDeleteDirRecursive, injection, status);
}

Status FaultInjectionFileSystem::CreateDirs(const std::string& path) {
  std::lock_guard<std::mutex> lock(mutex_);
  Injection injection = BeforeCall(FileOp::kCreateDirs, path);
  WEIR_RETURN_NOT_OK(injection.before);
  return AfterCall(FileOp::kCreateDirs, injection, base_->CreateDirs(path));
}

Result<bool> FaultInjectionFileSystem::Exists(const std::string& path) {
  std::lock_guard<std::mutex> lock(mutex_);
  Injection injection = BeforeCall(FileOp::kExists, path);
  WEIR_RETURN_NOT_OK(injection.before);
  Result<bool> exists = base_->Exists(path);
  WEIR_RETURN_NOT_OK(AfterCall(FileOp::kExists, injection, exists.status()));
  return exists;
}

Result<FileInfo> FaultInjectionFileSystem::GetFileInfo(const std::string& path) {
  std::lock_guard<std::mutex> lock(mutex_);
  Injection injection = BeforeCall(FileOp::kGetFileInfo, path);
  WEIR_RETURN_NOT_OK(injection.before);
  Result<FileInfo> info = base_->GetFileInfo(path);
  WEIR_RETURN_NOT_OK(AfterCall(FileOp::kGetFileInfo, injection, info.status()));
  return info;
}

Result<std::vector<FileInfo>> FaultInjectionFileSystem::List(const std::string& dir) {
  std::lock_guard<std::mutex> lock(mutex_);
  Injection injection = BeforeCall(FileOp::kList, dir);
  WEIR_RETURN_NOT_OK(injection.before);
  Result<std::vector<FileInfo>> listed = base_->List(dir);
  WEIR_RETURN_NOT_OK(AfterCall(FileOp::kList, injection, listed.status()));
  return listed;
}

Status FaultInjectionFileSystem::SyncDir(const std::string& path) {
  std::lock_guard<std::mutex> lock(mutex_);
  Injection injection = BeforeCall(FileOp::kSyncDir, path);
  WEIR_RETURN_NOT_OK(injection.before);
  Status status = base_->SyncDir(path);
  if (status.ok()) DirSyncedLocked(path);
  return AfterCall(FileOp::kSyncDir, injection, status);
}

}  // namespace weir::fs
