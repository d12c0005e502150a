#include "stream/checkpoint.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>

#include "fs/local_file_system.h"

namespace weir::stream {

namespace {

constexpr int kLogVersion = 1;
// The newest commit log weir reads: Spark 4.0's v2 (weir writes v1, which Spark 4 reads).
constexpr int kCommitLogVersionRead = 2;

// Splits at '\n', keeping empty lines but dropping one trailing newline.
std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) {
      if (start < text.size()) out.push_back(text.substr(start));
      break;
    }
    out.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return out;
}

// Checks the "vN" line as Spark's HDFSMetadataLog.validateVersion does, up to version
// `max_version` of that log (Spark 4.0's commit log is v2).
Status CheckVersion(std::string_view line, const std::string& path, int max_version = kLogVersion) {
  if (line.size() < 2 || line[0] != 'v') {
    return Status::Corruption("Log file was malformed: failed to detect the log file version line in " +
                              path + " (found '" + std::string(line.substr(0, 20)) + "')");
  }
  int version = 0;
  for (char c : line.substr(1)) {
    if (c < '0' || c > '9' || version > 100000) {
      return Status::Corruption("Log file was malformed: failed to read correct log version from '" +
                                std::string(line) + "' in " + path);
    }
    version = version * 10 + (c - '0');
  }
  if (version > max_version) {
    return Status::Corruption("The maximum supported log version is v" + std::to_string(max_version) +
                              ", but encountered v" + std::to_string(version) + " in " + path +
                              ". The log file was written by a newer version of Spark (or weir) "
                              "than this weir reads: it is not damaged; run the query with the "
                              "Spark that wrote it, or start the flow with a new checkpoint");
  }
  return Status::OK();
}

// A damaged checkpoint file is never skipped: the error says what the user can do about it.
Status WithRepairAdvice(Status st) {
  if (!st.IsCorruption()) return st;
  const std::string& m = st.message();
  if (m.find("restore") != std::string::npos || m.find("new checkpoint") != std::string::npos ||
      m.find("newer version") != std::string::npos ||
      m.find("start with a new") != std::string::npos) {
    return st;
  }
  return Status::Corruption(m + ". The checkpoint is damaged: restore the file from a backup, or "
                                "start the flow with a new checkpoint folder (a Kafka flow then "
                                "resumes from its table's per-partition txns)");
}

Result<nlohmann::json> ParseJson(std::string_view text, const std::string& path, const char* what) {
  auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    return Status::Corruption(std::string(what) + " in " + path + " is not valid JSON");
  }
  return j;
}

int64_t IntField(const nlohmann::json& j, const char* key) {
  if (!j.is_object() || !j.contains(key)) return 0;
  const auto& v = j[key];
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number()) {  // saturating, as Scala's Double.toLong
    double d = v.get<double>();
    if (std::isnan(d)) return 0;
    if (d >= 9.2233720368547758e18) return std::numeric_limits<int64_t>::max();
    if (d <= -9.2233720368547758e18) return std::numeric_limits<int64_t>::min();
    return static_cast<int64_t>(d);
  }
  return 0;
}

std::string Join(const std::vector<int64_t>& ids) {
  std::string out;
  for (int64_t id : ids) out += (out.empty() ? "" : ", ") + std::to_string(id);
  return out;
}

// The run locks this process holds: lock file → (descriptor, references). A POSIX record lock
// belongs to the process, and closing any descriptor of its file drops it, so each lock file is
// opened once, shared by the Checkpoint objects of its folder, and closed with the last of them.
struct HeldLocks {
  std::mutex mu;
  std::map<std::string, std::pair<int, int>> files;
};
HeldLocks& Held() {
  static HeldLocks* held = new HeldLocks;  // never destroyed: used until the process exits
  return *held;
}

bool OnLocalDisk(fs::FileSystem* fs) { return dynamic_cast<fs::LocalFileSystem*>(fs) != nullptr; }

std::string LockFile(const std::string& dir) {
  std::string path = fs::JoinPath(dir, Checkpoint::kRunLockName);
  std::error_code error;
  std::filesystem::path absolute = std::filesystem::absolute(path, error);
  return error ? path : absolute.lexically_normal().string();
}

// Takes a reference to the run lock of `dir` (best effort): the lock file, or "" when another
// process holds the lock or it could not be made.
std::string AcquireRunLock(const std::string& dir) {
  const std::string path = LockFile(dir);
  HeldLocks& held = Held();
  std::lock_guard<std::mutex> guard(held.mu);
  auto it = held.files.find(path);
  if (it != held.files.end()) {
    ++it->second.second;
    return path;
  }
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return "";
  struct flock lock {};
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;
  if (::fcntl(fd, F_SETLK, &lock) != 0) {
    ::close(fd);
    return "";
  }
  held.files[path] = {fd, 1};
  return path;
}

void ReleaseRunLock(const std::string& path) {
  HeldLocks& held = Held();
  std::lock_guard<std::mutex> guard(held.mu);
  auto it = held.files.find(path);
  if (it == held.files.end() || --it->second.second > 0) return;
  ::close(it->second.first);  // releases the lock
  held.files.erase(it);
}

// Whether another process holds the run lock file `path`; its pid in *pid (0 when the kernel
// does not say, e.g. from another pid namespace).
bool HeldElsewhere(const std::string& path, pid_t* pid) {
  HeldLocks& held = Held();
  std::lock_guard<std::mutex> guard(held.mu);
  // Held here: no other process can hold it (and probing would close a descriptor of the file,
  // which would drop this process's lock).
  if (held.files.count(path)) return false;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct flock lock {};
  lock.l_type = F_RDLCK;  // conflicts with the writers' F_WRLCK
  lock.l_whence = SEEK_SET;
  bool locked = ::fcntl(fd, F_GETLK, &lock) == 0 && lock.l_type != F_UNLCK;
  ::close(fd);
  if (locked) *pid = lock.l_pid;
  return locked;
}

}  // namespace

std::string NewUuid() {
  static thread_local std::mt19937_64 rng(std::random_device{}());
  uint64_t a = rng(), b = rng();
  a = (a & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;  // version 4
  b = (b & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;  // variant 1
  char buf[37];
  std::snprintf(buf, sizeof(buf), "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0xffff),
                static_cast<unsigned>(b >> 48), static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return buf;
}

std::string Checkpoint::SerializeOffsets(const OffsetSeq& offsets) {
  nlohmann::json meta = {{"batchWatermarkMs", offsets.batch_watermark_ms},
                         {"batchTimestampMs", offsets.batch_timestamp_ms},
                         {"conf", offsets.conf}};
  std::string out = "v" + std::to_string(kLogVersion) + "\n" + meta.dump();
  for (const auto& source : offsets.sources) out += "\n" + (source ? *source : std::string("-"));
  return out;
}

Result<OffsetSeq> Checkpoint::ParseOffsets(std::string_view text, const std::string& path) {
  if (text.empty()) {
    return Status::Corruption("Incomplete log file in the offset commit log: " + path +
                              " is empty. The checkpoint may be damaged; restore it or start a new one.");
  }
  auto lines = Lines(text);
  WEIR_RETURN_NOT_OK(CheckVersion(lines[0], path));
  if (lines.size() < 2) return Status::Corruption("Incomplete log file in the offset commit log: " + path);
  OffsetSeq out;
  WEIR_ASSIGN_OR_RETURN(nlohmann::json meta, ParseJson(lines[1], path, "offset metadata (line 2)"));
  out.batch_watermark_ms = IntField(meta, "batchWatermarkMs");
  out.batch_timestamp_ms = IntField(meta, "batchTimestampMs");
  if (meta.is_object() && meta.contains("conf") && meta["conf"].is_object()) {
    for (const auto& [k, v] : meta["conf"].items()) {
      out.conf[k] = v.is_string() ? v.get<std::string>() : v.dump();
    }
  }
  for (size_t i = 2; i < lines.size(); ++i) {
    if (lines[i] == "-") {
      out.sources.emplace_back();
      continue;
    }
    std::string what = "source offset (line " + std::to_string(i + 1) + ")";
    WEIR_RETURN_NOT_OK(ParseJson(lines[i], path, what.c_str()).status());
    out.sources.emplace_back(std::string(lines[i]));
  }
  return out;
}

std::string Checkpoint::SerializeCommit(const CommitMetadata& commit) {
  return "v" + std::to_string(kLogVersion) + "\n" +
         nlohmann::json{{"nextBatchWatermarkMs", commit.next_batch_watermark_ms}}.dump();
}

Result<CommitMetadata> Checkpoint::ParseCommit(std::string_view text, const std::string& path) {
  if (text.empty()) {
    return Status::Corruption("Incomplete log file in the commit log: " + path + " is empty");
  }
  auto lines = Lines(text);
  // v2 (Spark 4.0) adds stateUniqueIds: the state store checkpoint ids of each stateful
  // operator, which a stateless query leaves empty.
  WEIR_RETURN_NOT_OK(CheckVersion(lines[0], path, kCommitLogVersionRead));
  CommitMetadata out;
  if (lines.size() >= 2) {
    WEIR_ASSIGN_OR_RETURN(nlohmann::json j, ParseJson(lines[1], path, "commit metadata (line 2)"));
    out.next_batch_watermark_ms = IntField(j, "nextBatchWatermarkMs");
    auto ids = j.find("stateUniqueIds");
    if (ids != j.end() && !ids->is_null()) {
      if (!ids->is_object()) {
        return Status::Corruption("commit metadata in " + path +
                                  ": stateUniqueIds is not an object");
      }
      out.has_state_unique_ids = !ids->empty();
    }
  }
  return out;
}

Status Checkpoint::CheckNoSparkState() const {
  auto refuse = [&](const std::string& what) {
    return Status::InvalidArgument(
        "the checkpoint " + dir_ + " holds the state of a Spark stateful query (" + what +
        "): weir cannot continue Spark's state (dropDuplicates, aggregations, joins). Start the "
        "flow with a new checkpoint folder: a Kafka flow then resumes from its table's "
        "per-partition progress, and its state starts empty (docs/migration.md)");
  };
  WEIR_ASSIGN_OR_RETURN(std::vector<int64_t> commits, CommitIds());
  if (!commits.empty()) {
    WEIR_ASSIGN_OR_RETURN(CommitMetadata last, ReadCommit(commits.back()));
    if (last.has_state_unique_ids) {
      return refuse("commits/" + std::to_string(commits.back()) + " names state store checkpoints");
    }
  }
  auto operators = fs_->List(fs::JoinPath(dir_, "state"));
  if (!operators.ok()) return operators.status().IsNotFound() ? Status::OK() : operators.status();
  for (const fs::FileInfo& op : *operators) {
    if (!op.is_dir) continue;
    auto entries = fs_->List(op.path);
    if (!entries.ok()) continue;
    for (const fs::FileInfo& e : *entries) {
      const std::string name = fs::BaseName(e.path);
      if (name == "_metadata") return refuse(fs::JoinPath("state", fs::BaseName(op.path)) + "/_metadata");
      if (!e.is_dir) continue;
      auto files = fs_->List(e.path);
      if (!files.ok()) continue;
      for (const fs::FileInfo& f : *files) {
        const std::string file = fs::BaseName(f.path);
        for (const char* suffix : {".delta", ".snapshot", ".zip", ".changelog"}) {
          if (file.size() > std::strlen(suffix) && file.ends_with(suffix)) {
            return refuse("state file " + f.path.substr(dir_.size() + 1));
          }
        }
      }
    }
  }
  return Status::OK();
}

Result<std::unique_ptr<Checkpoint>> Checkpoint::Open(fs::FileSystem* fs, std::string dir) {
  std::unique_ptr<Checkpoint> cp(new Checkpoint(fs, std::move(dir)));
  WEIR_RETURN_NOT_OK(WithRepairAdvice(cp->LoadMetadata(/*create=*/true)));
  if (OnLocalDisk(fs)) cp->run_lock_ = AcquireRunLock(cp->dir_);
  return cp;
}

Checkpoint::~Checkpoint() {
  if (!run_lock_.empty()) ReleaseRunLock(run_lock_);
}

Result<std::optional<std::string>> Checkpoint::RunningQuery(fs::FileSystem* fs,
                                                            const std::string& dir) {
  if (!OnLocalDisk(fs)) return std::optional<std::string>();
  std::vector<std::string> folders = {dir};
  // Worker mode: each worker's run keeps its checkpoint in <dir>/workers/<group>/<run id>.
  auto groups = fs->List(fs::JoinPath(dir, "workers"));
  if (groups.ok()) {
    for (const fs::FileInfo& group : *groups) {
      if (!group.is_dir) continue;
      auto runs = fs->List(group.path);
      if (!runs.ok()) continue;
      for (const fs::FileInfo& run : *runs) {
        if (run.is_dir) folders.push_back(run.path);
      }
    }
  } else if (!groups.status().IsNotFound()) {
    return groups.status();
  }
  for (const std::string& folder : folders) {
    const std::string path = LockFile(folder);
    pid_t pid = 0;
    if (HeldElsewhere(path, &pid)) {
      return std::optional<std::string>((pid > 0 ? "process " + std::to_string(pid)
                                                 : std::string("another process")) +
                                        " (" + path + ")");
    }
  }
  return std::optional<std::string>();
}

Result<std::unique_ptr<Checkpoint>> Checkpoint::OpenExisting(fs::FileSystem* fs, std::string dir) {
  std::unique_ptr<Checkpoint> cp(new Checkpoint(fs, std::move(dir)));
  WEIR_RETURN_NOT_OK(WithRepairAdvice(cp->LoadMetadata(/*create=*/false)));
  return cp;
}

Status Checkpoint::LoadMetadata(bool create) {
  const std::string path = fs::JoinPath(dir_, "metadata");
  auto text = fs::ReadFileToString(fs_, path);
  if (text.ok()) {
    WEIR_ASSIGN_OR_RETURN(nlohmann::json j, ParseJson(*text, path, "checkpoint metadata"));
    if (!j.is_object() || !j.contains("id") || !j["id"].is_string() || j["id"].get<std::string>().empty()) {
      return Status::Corruption("checkpoint metadata " + path + " has no query \"id\"");
    }
    query_id_ = j["id"].get<std::string>();
    return Status::OK();
  }
  if (!text.status().IsNotFound()) return text.status();
  if (!create) return Status::NotFound("no checkpoint at " + dir_ + " (missing " + path + ")");
  // A folder with batches but without metadata is damaged: never start over silently.
  auto ids = ListIds("offsets");
  if (ids.ok() && !ids->empty()) {
    return Status::Corruption("checkpoint " + dir_ + " has offsets but no metadata file; restore " +
                              path + " or start with a new checkpoint folder");
  }
  WEIR_RETURN_NOT_OK(fs_->CreateDirs(dir_));
  query_id_ = NewUuid();
  Status st = fs_->PutIfAbsent(path, nlohmann::json{{"id", query_id_}}.dump());
  if (st.IsAlreadyExists()) return LoadMetadata(false);  // another process created it first
  return st;
}

Result<std::vector<int64_t>> Checkpoint::ListIds(const std::string& sub) const {
  auto entries = fs_->List(fs::JoinPath(dir_, sub));
  if (!entries.ok()) {
    if (entries.status().IsNotFound()) return std::vector<int64_t>{};
    return entries.status();
  }
  std::vector<int64_t> ids;
  for (const auto& e : *entries) {
    std::string name = fs::BaseName(e.path);
    if (e.is_dir || name.empty() || name.size() > 18) continue;
    if (!std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; })) continue;
    ids.push_back(std::stoll(name));
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

Result<std::vector<int64_t>> Checkpoint::OffsetIds() const { return ListIds("offsets"); }
Result<std::vector<int64_t>> Checkpoint::CommitIds() const { return ListIds("commits"); }

Result<OffsetSeq> Checkpoint::ReadOffsets(int64_t batch_id) const {
  std::string path = fs::JoinPath(fs::JoinPath(dir_, "offsets"), std::to_string(batch_id));
  WEIR_ASSIGN_OR_RETURN(std::string text, fs::ReadFileToString(fs_, path));
  auto parsed = ParseOffsets(text, path);
  if (!parsed.ok()) return WithRepairAdvice(parsed.status());
  return parsed;
}

Result<CommitMetadata> Checkpoint::ReadCommit(int64_t batch_id) const {
  std::string path = fs::JoinPath(fs::JoinPath(dir_, "commits"), std::to_string(batch_id));
  WEIR_ASSIGN_OR_RETURN(std::string text, fs::ReadFileToString(fs_, path));
  auto parsed = ParseCommit(text, path);
  if (!parsed.ok()) return WithRepairAdvice(parsed.status());
  return parsed;
}

Result<RestartPlan> Checkpoint::PlanRestart() const {
  auto plan = PlanRestartUnadvised();
  if (!plan.ok()) return WithRepairAdvice(plan.status());
  return plan;
}

Result<RestartPlan> Checkpoint::PlanRestartUnadvised() const {
  WEIR_ASSIGN_OR_RETURN(std::vector<int64_t> offsets, OffsetIds());
  WEIR_ASSIGN_OR_RETURN(std::vector<int64_t> commits, CommitIds());
  RestartPlan plan;
  if (offsets.empty()) {
    if (!commits.empty()) {
      return Status::Corruption("checkpoint " + dir_ + " has commits (" + Join(commits) +
                                ") but no offsets; start with a new checkpoint folder");
    }
    return plan;  // fresh
  }
  // Offsets ids must be contiguous (retention removes only the oldest).
  std::vector<int64_t> missing;
  for (int64_t id = offsets.front(); id <= offsets.back() && missing.size() < 20; ++id) {
    if (!std::binary_search(offsets.begin(), offsets.end(), id)) missing.push_back(id);
  }
  if (!missing.empty()) {
    return Status::Corruption("batches (" + Join(missing) + ") don't exist (startId: " +
                              std::to_string(offsets.front()) + ", endId: " +
                              std::to_string(offsets.back()) + ") in " + dir_ + "/offsets");
  }
  const int64_t latest = offsets.back();
  WEIR_ASSIGN_OR_RETURN(OffsetSeq latest_offsets, ReadOffsets(latest));
  std::optional<OffsetSeq> previous;
  if (latest > 0) {
    auto prev = ReadOffsets(latest - 1);
    if (!prev.ok()) {
      if (prev.status().IsNotFound()) {
        return Status::Corruption("batch " + std::to_string(latest - 1) + " doesn't exist in " + dir_ +
                                  "/offsets (needed to resume batch " + std::to_string(latest) + ")");
      }
      return prev.status();
    }
    previous = std::move(*prev);
  }
  const int64_t last_commit = commits.empty() ? -1 : commits.back();
  if (last_commit > latest) {
    return Status::Corruption("checkpoint " + dir_ + " has commit " + std::to_string(last_commit) +
                              " but offsets only up to " + std::to_string(latest));
  }
  if (last_commit == latest) {
    WEIR_ASSIGN_OR_RETURN(CommitMetadata commit, ReadCommit(latest));
    plan.kind = RestartPlan::Kind::kNextBatch;
    plan.batch_id = latest + 1;
    plan.start = std::move(latest_offsets);
    plan.watermark_ms = commit.next_batch_watermark_ms;
    return plan;
  }
  if (last_commit >= 0 && last_commit < latest - 1) {
    return Status::Corruption("checkpoint " + dir_ + ": batch " + std::to_string(latest) +
                              " is logged but the last commit is " + std::to_string(last_commit) +
                              " (batches in between were never committed)");
  }
  // Batch `latest` was planned but not committed: run it again over its logged range.
  plan.kind = RestartPlan::Kind::kRerun;
  plan.batch_id = latest;
  plan.start = std::move(previous);
  plan.watermark_ms = latest_offsets.batch_watermark_ms;
  plan.end = std::move(latest_offsets);
  return plan;
}

Result<std::optional<std::string>> Checkpoint::ReadInitialOffsets(int index) const {
  std::string path = dir_ + "/sources/" + std::to_string(index) + "/0";
  auto text = fs::ReadFileToString(fs_, path);
  if (!text.ok()) {
    if (text.status().IsNotFound()) return std::optional<std::string>();
    return text.status();
  }
  // One lead byte (0x00, or Spark 2.1.0's length byte), then "v1\n" and the JSON.
  std::string_view body(*text);
  if (!body.empty()) body.remove_prefix(1);
  if (!body.empty() && body[0] == 'v') {
    size_t nl = body.find('\n');
    if (nl == std::string_view::npos) return Status::Corruption("incomplete initial offsets file " + path);
    WEIR_RETURN_NOT_OK(CheckVersion(body.substr(0, nl), path));
    body.remove_prefix(nl + 1);
  }
  WEIR_RETURN_NOT_OK(ParseJson(body, path, "initial offsets").status());
  return std::optional<std::string>(std::string(body));
}

Status Checkpoint::WriteInitialOffsets(int index, const std::string& json) {
  std::string dir = dir_ + "/sources/" + std::to_string(index);
  WEIR_RETURN_NOT_OK(fs_->CreateDirs(dir));
  std::string content(1, '\0');
  content += "v1\n" + json;
  return fs_->PutIfAbsent(dir + "/0", content);
}

Result<std::map<std::string, std::string>> Checkpoint::RecordedConf(int64_t batch_id) {
  if (!recorded_conf_) {
    recorded_conf_.emplace();
    if (batch_id > 0) {
      auto previous = ReadOffsets(batch_id - 1);
      if (previous.ok()) {
        recorded_conf_ = std::move(previous->conf);
      } else if (!previous.status().IsNotFound()) {
        recorded_conf_.reset();
        return previous.status();
      }
    }
  }
  return *recorded_conf_;
}

Status Checkpoint::WriteOffsets(int64_t batch_id, const OffsetSeq& offsets) {
  std::string dir = fs::JoinPath(dir_, "offsets");
  WEIR_RETURN_NOT_OK(fs_->CreateDirs(dir));
  WEIR_ASSIGN_OR_RETURN(auto recorded, RecordedConf(batch_id));
  OffsetSeq carried = offsets;
  for (const auto& [key, value] : recorded) carried.conf[key] = value;
  if (recorded.empty()) recorded_conf_ = carried.conf;
  Status st = fs_->PutIfAbsent(fs::JoinPath(dir, std::to_string(batch_id)), SerializeOffsets(carried));
  if (st.IsAlreadyExists()) {
    return Status::AlreadyExists("offsets/" + std::to_string(batch_id) + " already exists in " + dir_ +
                                 ": another query is using this checkpoint");
  }
  return st;
}

Status Checkpoint::WriteCommit(int64_t batch_id, const CommitMetadata& commit) {
  std::string dir = fs::JoinPath(dir_, "commits");
  WEIR_RETURN_NOT_OK(fs_->CreateDirs(dir));
  Status st = fs_->PutIfAbsent(fs::JoinPath(dir, std::to_string(batch_id)), SerializeCommit(commit));
  if (st.IsAlreadyExists()) {
    return Status::AlreadyExists("commits/" + std::to_string(batch_id) + " already exists in " + dir_ +
                                 ": another query is using this checkpoint");
  }
  return st;
}

Status Checkpoint::Purge(int64_t latest_batch_id, int64_t keep) {
  const int64_t threshold = latest_batch_id - keep + 1;
  for (const char* sub : {"offsets", "commits"}) {
    WEIR_ASSIGN_OR_RETURN(std::vector<int64_t> ids, ListIds(sub));
    for (int64_t id : ids) {
      if (id >= threshold) break;
      Status st = fs_->Delete(fs::JoinPath(fs::JoinPath(dir_, sub), std::to_string(id)));
      if (!st.ok() && !st.IsNotFound()) return st;
    }
  }
  return Status::OK();
}

}  // namespace weir::stream
