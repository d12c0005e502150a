// libFuzzer target for the files of a streaming checkpoint (docs/checkpoint-format.md), which a
// restart reads from storage that may hold anything after a crash, a bad copy or a hand edit:
// offsets/N and commits/N (stream/checkpoint.h), the Kafka offset JSON of a source line
// (kafka/offsets.h, also the startingOffsets / startingOffsetsByTimestamp / assign options) and
// a Delta source's offset (delta/streaming_source.h). Arbitrary bytes must yield a value or the
// documented error code, never a crash, hang or sanitizer report; whatever parses must serialize
// and parse back to the same value (a checkpoint weir writes is always one it can read).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "delta/streaming_source.h"
#include "kafka/offsets.h"
#include "stream/checkpoint.h"

namespace {

void Require(bool condition) {
  if (!condition) std::abort();
}

void FuzzOffsetsFile(std::string_view text) {
  using weir::stream::Checkpoint;
  auto parsed = Checkpoint::ParseOffsets(text, "offsets/7");
  if (!parsed.ok()) {
    Require(parsed.status().IsCorruption() || parsed.status().IsNotImplemented());
    return;
  }
  std::string serialized = Checkpoint::SerializeOffsets(*parsed);
  auto again = Checkpoint::ParseOffsets(serialized, "offsets/7");
  Require(again.ok());
  Require(Checkpoint::SerializeOffsets(*again) == serialized);
  // Each source line is an offset JSON of one kind or another: none may crash.
  for (const auto& source : parsed->sources) {
    if (!source) continue;
    (void)weir::kafka::PartitionOffsetsFromJson(*source);
    (void)weir::delta::DeltaSourceOffset::FromJson(*source);
  }
}

void FuzzCommitFile(std::string_view text) {
  using weir::stream::Checkpoint;
  auto parsed = Checkpoint::ParseCommit(text, "commits/7");
  if (!parsed.ok()) {
    Require(parsed.status().IsCorruption() || parsed.status().IsNotImplemented());
    return;
  }
  std::string serialized = Checkpoint::SerializeCommit(*parsed);
  auto again = Checkpoint::ParseCommit(serialized, "commits/7");
  Require(again.ok() && again->next_batch_watermark_ms == parsed->next_batch_watermark_ms);
}

void FuzzKafkaOffsets(std::string_view text) {
  auto offsets = weir::kafka::PartitionOffsetsFromJson(text);
  if (offsets.ok()) {
    std::string json = weir::kafka::PartitionOffsetsToJson(*offsets);
    auto again = weir::kafka::PartitionOffsetsFromJson(json);
    Require(again.ok() && *again == *offsets);
    (void)weir::kafka::FormatOffsetMap(*offsets);
  }
  (void)weir::kafka::PartitionTimestampsFromJson(text);
  auto partitions = weir::kafka::TopicPartitionsFromJson(text);
  if (partitions.ok()) {
    auto again = weir::kafka::TopicPartitionsFromJson(weir::kafka::TopicPartitionsToJson(*partitions));
    Require(again.ok() && *again == *partitions);
  }
}

void FuzzDeltaOffset(std::string_view text) {
  auto offset = weir::delta::DeltaSourceOffset::FromJson(text);
  if (!offset.ok() || offset->index == weir::delta::DeltaSourceOffset::kEndIndex) return;
  auto again = weir::delta::DeltaSourceOffset::FromJson(offset->ToJson());
  Require(again.ok() && *again == *offset);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  FuzzOffsetsFile(text);
  FuzzCommitFile(text);
  FuzzKafkaOffsets(text);
  FuzzDeltaOffset(text);
  return 0;
}
