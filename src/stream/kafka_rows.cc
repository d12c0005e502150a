#include "stream/kafka_rows.h"

namespace weir::stream {

using columnar::DataType;
using columnar::Field;

columnar::Schema KafkaSourceSchema(bool include_headers) {
  columnar::Schema schema;
  schema.fields = {
      Field{"key", DataType::Binary(), true},          Field{"value", DataType::Binary(), true},
      Field{"topic", DataType::String(), true},        Field{"partition", DataType::Int32(), true},
      Field{"offset", DataType::Int64(), true},        Field{"timestamp", DataType::Timestamp(), true},
      Field{"timestampType", DataType::Int32(), true},
  };
  if (include_headers) {
    auto header = DataType::Struct({Field{"key", DataType::String(), true}, Field{"value", DataType::Binary(), true}});
    schema.fields.push_back(Field{"headers", DataType::List(header), true});
  }
  return schema;
}

namespace {
// Keys up to this long are copied next to each other in the column's arena; longer ones stay
// views into the records. The encoder dictionary-encodes the key column, and most of that time
// went to the first read of each key where the client left it (a cache miss per key, next to a
// payload read long before); the reader touches the key here anyway.
constexpr size_t kCopiedKeyBytes = 64;
// How many records ahead a key is prefetched.
constexpr size_t kKeyPrefetch = 8;
}  // namespace

void AppendKafkaRecords(std::shared_ptr<const kafka::RecordBatch> records, bool include_headers,
                        columnar::Batch* out) {
  auto& c = out->columns;
  const size_t n = records->size();
  for (auto& column : c) column.Reserve(column.size() + static_cast<int64_t>(n));
  c[0].AddBufferOwner(records);
  c[1].AddBufferOwner(records);
  c[2].AddBufferOwner(records);
  if (include_headers) c[7].AddBufferOwner(records);
  for (size_t i = 0; i < n; ++i) {
    const kafka::RecordView& r = (*records)[i];
    if (i + kKeyPrefetch < n && (*records)[i + kKeyPrefetch].key) {
      __builtin_prefetch((*records)[i + kKeyPrefetch].key->data());
    }
    if (!r.key) {
      c[0].AppendNull();
    } else if (r.key->size() <= kCopiedKeyBytes) {
      c[0].AppendString(*r.key);
    } else {
      c[0].AppendStringView(*r.key);
    }
    r.value ? c[1].AppendStringView(*r.value) : c[1].AppendNull();
    c[2].AppendStringView(r.topic);
    c[3].Append<int32_t>(r.partition);
    c[4].Append<int64_t>(r.offset);
    if (r.timestamp_ms >= 0) {
      c[5].Append<int64_t>(r.timestamp_ms * 1000);
    } else {
      c[5].AppendNull();
    }
    c[6].Append<int32_t>(r.timestamp_type < 0 ? 0 : r.timestamp_type);
    if (!include_headers) continue;
    if (r.headers == nullptr) {
      c[7].AppendNull();
      continue;
    }
    columnar::Column& element = c[7].mutable_child(0);
    for (size_t h = 0; h < r.header_count(); ++h) {
      kafka::HeaderView header = r.header(h);
      element.mutable_child(0).AppendStringView(header.key);
      header.value ? element.mutable_child(1).AppendStringView(*header.value)
                   : element.mutable_child(1).AppendNull();
      element.AppendStructEntry();
    }
    c[7].AppendListEntry();
  }
}

}  // namespace weir::stream
