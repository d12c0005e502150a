// FlowSource: what the micro-batch engine (stream/streaming_query.h) needs from a flow's source —
// a Kafka / Event Hubs subscription (kafka_flow_source.h) or a Delta table read as a stream
// (delta_flow_source.h). Offsets are kept as the JSON text Spark logs for the source in a
// checkpoint's offsets/N, so the engine never looks inside them. A source keeps its current
// start position; the engine moves it with Advance() after each committed batch. Not
// thread-safe, except that the producer returned by Read() runs on the prefetch thread while the
// engine only waits for it.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "base/result.h"
#include "columnar/column.h"
#include "delta/snapshot.h"
#include "stream/checkpoint.h"
#include "stream/prefetcher.h"
#include "stream/progress.h"
#include "stream/trigger.h"

namespace weir::stream {

class FlowSource {
 public:
  virtual ~FlowSource() = default;

  // The rows the source produces.
  virtual const columnar::Schema& schema() const = 0;
  // Spark's description in progress ("KafkaV2[Subscribe[orders]]", "DeltaSource[file:/...]").
  virtual std::string description() const = 0;

  // A new checkpoint: chooses where batch 0 starts (writing what Spark keeps in sources/0/0).
  // `table` is the flow's own table, from which a source may resume its progress.
  virtual Status StartFresh(Checkpoint& checkpoint, const delta::Snapshot& table) = 0;
  // Restarting: the start is the end of the last committed batch (`end_json`), or, for a batch 0
  // logged but not committed, the initial position (nullopt).
  virtual Status Restore(const std::optional<std::string>& end_json, Checkpoint& checkpoint) = 0;

  // latestOffset: the end of the next batch (a JSON offset), or nullopt when there is no new
  // data. Under availableNow the first call fixes the end of the run.
  virtual Result<std::optional<std::string>> PlanNext(const Trigger& trigger,
                                                      int64_t trigger_start_ms) = 0;
  // processingTime=0 and PlanNext found no new data: waits at most `max_wait_ms` (the engine
  // backs off from 10 ms to MaxIdleWaitMs() while the source stays idle) or until `*stop`.
  // Returns true when the source knows new data arrived; the engine then plans again at once.
  // The default sleeps: the engine's next PlanNext looks at the source.
  virtual bool WaitForData(int64_t max_wait_ms, const std::atomic<bool>* stop);
  // The longest wait between two looks at an idle source.
  virtual int64_t MaxIdleWaitMs() const { return 100; }
  // Under availableNow, after the first PlanNext: how many rows the run has to read (0 when
  // unknown), for a progress bar.
  virtual int64_t BacklogRows() const { return 0; }

  // getBatch: plans reading from the start to `end_json` (checks for lost data).
  virtual Status PlanRead(const std::string& end_json) = 0;
  // Rows PlanRead expects (offsets for Kafka; 0 when unknown).
  virtual int64_t PlannedRows() const { return 0; }
  // Reads the planned batch in chunks of about `chunk_rows` rows.
  virtual Result<BatchPrefetcher::Producer> Read(int64_t chunk_rows) = 0;
  // How many of Read's chunks may be read ahead of the one being written.
  virtual size_t prefetch_depth() const { return 4; }
  // After the producer finished: warnings, metrics.
  virtual void FinishRead() {}

  // Txns (appId -> version) to commit with the batch in the flow's table.
  virtual std::map<std::string, int64_t> SinkTxns(const std::string& end_json) const = 0;
  // Txns the batch was planned from (appId -> version; nullopt: the table had none): the commit
  // fails with Conflict when the table no longer holds exactly these (another writer moved them).
  virtual std::map<std::string, std::optional<int64_t>> SinkExpectedTxns(
      const std::string& /*end_json*/) const {
    return {};
  }
  // Fills the source's entry of the progress report for the batch ending at `end_json`.
  virtual void Report(const std::string& end_json, SourceProgress* progress) const = 0;
  // The batch ending at `end_json` is committed: it becomes the start.
  virtual Status Advance(const std::string& end_json) = 0;
  // Whether the engine may Advance() to a batch's end before the batch commits, to plan and read
  // the next batch meanwhile (moving the start back if the commit fails): true when Advance has
  // no effect outside the source.
  virtual bool CanPlanAhead() const { return false; }
  // The current start as JSON (what offsets/N-1 holds), or "null".
  virtual std::string StartJson() const = 0;
};

}  // namespace weir::stream
