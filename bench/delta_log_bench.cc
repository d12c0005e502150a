// What finding a Delta table's new versions costs once its log is long (issue 33): a table whose
// _delta_log holds 300,000 entries (a bronze table a little over half a day old at ~6 commits/s;
// log retention keeps 30 days), on the local disk, read as a stream the way a silver flow reads
// bronze. BM_Load: the latest snapshot, loaded from nothing (a flow's start). BM_IdlePoll:
// LatestOffset at the end of the log (nothing new: what a caught-up flow does between batches).
// BM_NewCommit: a commit appears, LatestOffset + FilesBetween plan its batch (then the log is
// checkpointed at its end, outside the timing). Arg 1 runs them over a store
// without a listing start key (ListFrom = a full listing, filtered: Azure Blob's List Blobs),
// through fs::CountingFileSystem; the counters are storage calls per iteration.
//
// The log: commits 1..N of a commitInfo each (written directly, no sync), a checkpoint at N (the
// state at version 0, which those commits do not change, copied under N's name) with
// _last_checkpoint, then commits of one add each as the benchmark goes. Directory: $TMPDIR or
// /tmp, or BENCH_LOG_DIR (kept for the next run); BENCH_LOG_ENTRIES for another length. Built by the same source against the code
// before and after the change, the ratio of the two runs is the improvement.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <unistd.h>

#include "delta/actions.h"
#include "delta/checkpoint.h"
#include "delta/log_path.h"
#include "delta/snapshot.h"
#include "delta/streaming_source.h"
#include "delta/table.h"
#include "fs/counting_file_system.h"
#include "fs/local_file_system.h"

namespace weir::bench {
namespace {

fs::FileSystem* Local() { return fs::LocalFileSystem::Default(); }

std::string CommitText(int64_t version, bool with_add) {
  delta::CommitInfo info;
  info.timestamp = 1700000000000 + version;
  info.operation = "WRITE";
  info.operation_parameters = {{"mode", "Append"}};
  std::vector<delta::Action> actions{info};
  if (with_add) {
    delta::AddFile add;
    add.path = "part-" + std::to_string(version) + ".parquet";
    add.size = 100;
    add.modification_time = 1700000000000 + version;
    add.stats = R"({"numRecords":1})";
    actions.push_back(add);
  }
  return delta::SerializeActions(actions);
}

// The table, made once per process and removed at exit.
class LongLog {
 public:
  static LongLog& Get() {
    static LongLog log;
    return log;
  }

  const std::string& root() const { return root_; }
  int64_t latest() const { return latest_; }
  int64_t entries() const { return entries_; }
  // A checkpoint of the latest version, as the writer of the commits below would make.
  void CheckpointLatest() {
    auto snapshot = delta::Snapshot::Load(Local(), root_);
    if (!snapshot.ok() || !delta::WriteCheckpoint(**snapshot, {.clean_up_expired_logs = false}).ok()) {
      std::abort();
    }
    ++entries_;
  }
  // Commits the next version (one add), as another writer would.
  void Commit() {
    ++latest_;
    const std::string path =
        fs::JoinPath(delta::LogDirPath(root_), delta::CommitFileName(latest_));
    if (!Local()->PutIfAbsent(path, CommitText(latest_, true)).ok()) std::abort();
    ++entries_;
  }

 private:
  LongLog() {
    const char* tmp = std::getenv("TMPDIR");
    std::string base = tmp && *tmp ? tmp : "/tmp";
    const char* n = std::getenv("BENCH_LOG_ENTRIES");
    const int64_t entries = n ? std::atoll(n) : 300000;
    // BENCH_LOG_DIR: a directory kept between runs (made on the first), so that two builds
    // measure the same log without writing it twice.
    const char* keep = std::getenv("BENCH_LOG_DIR");
    keep_ = keep && *keep;
    dir_ = keep_ ? std::string(keep) : base + "/weir-delta-log-bench-" + std::to_string(::getpid());
    root_ = dir_ + "/table";
    if (keep_ && std::filesystem::exists(delta::LogDirPath(root_))) {
      auto snapshot = delta::Snapshot::Load(Local(), root_);
      auto listed = Local()->List(delta::LogDirPath(root_));
      if (!snapshot.ok() || !listed.ok()) std::abort();
      latest_ = (*snapshot)->version();
      entries_ = static_cast<int64_t>(listed->size());
      return;
    }
    std::filesystem::create_directories(dir_);
    auto table = delta::Table::Create(Local(), root_,
                                      columnar::ParseDdlSchema("id BIGINT").ValueOrDie(), {});
    if (!table.ok()) std::abort();
    // Entries: commits 0..N, the checkpoint, _last_checkpoint.
    const int64_t n_commits = entries - 3;
    const std::string log_dir = delta::LogDirPath(root_);
    for (int64_t v = 1; v <= n_commits; ++v) {
      if (!fs::WriteStringToFile(Local(), fs::JoinPath(log_dir, delta::CommitFileName(v)),
                                 CommitText(v, false), /*sync=*/false)
               .ok()) {
        std::abort();
      }
    }
    auto at_zero = delta::Snapshot::Load(Local(), root_, 0);
    if (!at_zero.ok()) std::abort();
    if (!delta::WriteCheckpoint(**at_zero, {.clean_up_expired_logs = false}).ok()) std::abort();
    std::filesystem::rename(fs::JoinPath(log_dir, delta::ClassicCheckpointFileName(0)),
                            fs::JoinPath(log_dir, delta::ClassicCheckpointFileName(n_commits)));
    delta::LastCheckpointHint hint;
    hint.version = n_commits;
    hint.size = 2;
    if (!Local()->WriteAtomic(fs::JoinPath(log_dir, std::string(delta::kLastCheckpointName)),
                              delta::SerializeLastCheckpoint(hint))
             .ok()) {
      std::abort();
    }
    latest_ = n_commits;
    entries_ = entries;
  }
  ~LongLog() {
    std::error_code ec;
    if (!keep_) std::filesystem::remove_all(dir_, ec);
  }

  bool keep_ = false;
  std::string dir_;
  std::string root_;
  int64_t latest_ = 0;
  int64_t entries_ = 0;
};

std::unique_ptr<fs::CountingFileSystem> Store(const benchmark::State& state) {
  return std::make_unique<fs::CountingFileSystem>(
      Local(), fs::CountingFileSystem::Options{.list_from_lists_everything = state.range(0) == 1});
}

void Report(benchmark::State& state, const fs::CountingFileSystem& store) {
  const auto c = store.counts();
  const double n = static_cast<double>(state.iterations());
  state.counters["listings"] = static_cast<double>(c.listings()) / n;
  state.counters["entries_listed"] = static_cast<double>(c.entries_listed) / n;
  state.counters["lookups"] = static_cast<double>(c.lookups()) / n;
  state.counters["log_entries"] = static_cast<double>(LongLog::Get().entries());
  state.SetLabel(state.range(0) == 1 ? "no start key" : "start key");
}

delta::DeltaSourceOffset BaseOf(const std::string& id, int64_t version) {
  delta::DeltaSourceOffset o;
  o.reservoir_id = id;
  o.reservoir_version = version;
  o.index = delta::DeltaSourceOffset::kBaseIndex;
  return o;
}

void BM_Load(benchmark::State& state) {
  LongLog& log = LongLog::Get();
  auto store = Store(state);
  for (auto _ : state) {
    auto snapshot = delta::Snapshot::Load(store.get(), log.root());
    if (!snapshot.ok() || (*snapshot)->version() != log.latest()) {
      state.SkipWithError("load failed");
    }
  }
  Report(state, *store);
}
BENCHMARK(BM_Load)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

void BM_IdlePoll(benchmark::State& state) {
  LongLog& log = LongLog::Get();
  auto store = Store(state);
  auto source = delta::DeltaSource::Open(store.get(), log.root()).ValueOrDie();
  const auto start = BaseOf(source->table_id(), log.latest() + 1);
  const auto limit = source->DefaultReadLimit();
  store->Reset();
  for (auto _ : state) {
    auto end = source->LatestOffset(start, limit);
    if (!end.ok() || *end != start) state.SkipWithError("expected nothing new");
  }
  Report(state, *store);
}
BENCHMARK(BM_IdlePoll)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

void BM_NewCommit(benchmark::State& state) {
  LongLog& log = LongLog::Get();
  auto store = Store(state);
  auto source = delta::DeltaSource::Open(store.get(), log.root()).ValueOrDie();
  std::optional<delta::DeltaSourceOffset> start = BaseOf(source->table_id(), log.latest() + 1);
  const auto limit = source->DefaultReadLimit();
  // One batch first: a stream's first batch checks the schema at its start version, once.
  log.Commit();
  auto first = source->LatestOffset(start, limit).ValueOrDie();
  if (!first || !source->FilesBetween(start, *first).ok()) std::abort();
  start = first;
  store->Reset();
  for (auto _ : state) {
    state.PauseTiming();
    log.Commit();
    state.ResumeTiming();
    auto end = source->LatestOffset(start, limit);
    if (!end.ok() || !*end) {
      state.SkipWithError("no end");
      break;
    }
    auto files = source->FilesBetween(start, **end);
    if (!files.ok() || files->size() != 1) {
      state.SkipWithError("expected one file");
      break;
    }
    start = *end;
  }
  Report(state, *store);
  log.CheckpointLatest();  // the next run's load starts from the log's end again
}
BENCHMARK(BM_NewCommit)->Arg(0)->Arg(1)->MinTime(3)->Unit(benchmark::kMicrosecond);


}  // namespace
}  // namespace weir::bench

BENCHMARK_MAIN();
