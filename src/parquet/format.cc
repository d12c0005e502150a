#include "parquet/format.h"

#include <algorithm>
#include <string>
#include <type_traits>
#include <utility>

#include "parquet/thrift_compact.h"

namespace weir::parquet {
namespace {

using Reader = ThriftCompactReader;
using Writer = ThriftCompactWriter;

// ---------------------------------------------------------------------------------------------
// Reading helpers. `field` names the field for messages, e.g. "SchemaElement.name".

Status Missing(const char* field) {
  return Status::Corruption("required field " + std::string(field) + " is missing");
}

Status Expect(const Reader& r, ThriftType got, ThriftType want, const char* field) {
  if (got == want) return Status::OK();
  return Status::Corruption("field " + std::string(field) + " has thrift type " +
                            std::string(ThriftTypeName(got)) + ", expected " +
                            std::string(ThriftTypeName(want)) + " (before byte " +
                            std::to_string(r.position()) + ")");
}

Status ReadField(Reader* r, ThriftType t, const char* field, bool* out) {
  WEIR_RETURN_NOT_OK(Expect(*r, t, ThriftType::kBool, field));
  return r->ReadBool(out);
}
Status ReadField(Reader* r, ThriftType t, const char* field, int8_t* out) {
  WEIR_RETURN_NOT_OK(Expect(*r, t, ThriftType::kByte, field));
  return r->ReadI8(out);
}
Status ReadField(Reader* r, ThriftType t, const char* field, int16_t* out) {
  WEIR_RETURN_NOT_OK(Expect(*r, t, ThriftType::kI16, field));
  return r->ReadI16(out);
}
Status ReadField(Reader* r, ThriftType t, const char* field, int32_t* out) {
  WEIR_RETURN_NOT_OK(Expect(*r, t, ThriftType::kI32, field));
  return r->ReadI32(out);
}
Status ReadField(Reader* r, ThriftType t, const char* field, int64_t* out) {
  WEIR_RETURN_NOT_OK(Expect(*r, t, ThriftType::kI64, field));
  return r->ReadI64(out);
}
Status ReadField(Reader* r, ThriftType t, const char* field, std::string* out) {
  WEIR_RETURN_NOT_OK(Expect(*r, t, ThriftType::kBinary, field));
  return r->ReadString(out);
}
// Thrift enums are i32 on the wire; unknown values are kept.
template <typename E>
requires std::is_enum_v<E> Status ReadField(Reader* r, ThriftType t, const char* field, E* out) {
  int32_t v;
  WEIR_RETURN_NOT_OK(ReadField(r, t, field, &v));
  *out = static_cast<E>(v);
  return Status::OK();
}
template <typename T>
Status ReadField(Reader* r, ThriftType t, const char* field, std::optional<T>* out) {
  T value{};
  WEIR_RETURN_NOT_OK(ReadField(r, t, field, &value));
  *out = std::move(value);
  return Status::OK();
}

Status ReadStruct(Reader* r, Statistics* out);
Status ReadStruct(Reader* r, LogicalType* out);
Status ReadStruct(Reader* r, SchemaElement* out);
Status ReadStruct(Reader* r, KeyValue* out);
Status ReadStruct(Reader* r, PageEncodingStats* out);
Status ReadStruct(Reader* r, ColumnMetaData* out);
Status ReadStruct(Reader* r, ColumnChunk* out);
Status ReadStruct(Reader* r, RowGroup* out);
Status ReadStruct(Reader* r, FileMetaData* out);
Status ReadStruct(Reader* r, DataPageHeader* out);
Status ReadStruct(Reader* r, DictionaryPageHeader* out);
Status ReadStruct(Reader* r, DataPageHeaderV2* out);
Status ReadStruct(Reader* r, PageHeader* out);

template <typename S>
Status ReadStructField(Reader* r, ThriftType t, const char* field, std::optional<S>* out) {
  WEIR_RETURN_NOT_OK(Expect(*r, t, ThriftType::kStruct, field));
  S value;
  WEIR_RETURN_NOT_OK(ReadStruct(r, &value));
  *out = std::move(value);
  return Status::OK();
}

// Reads list<element_type> into *out with read_element(Reader*, T*) per element.
template <typename T, typename ReadElement>
Status ReadList(Reader* r, ThriftType t, const char* field, ThriftType element_type,
                std::vector<T>* out, ReadElement read_element) {
  if (t != ThriftType::kSet) WEIR_RETURN_NOT_OK(Expect(*r, t, ThriftType::kList, field));
  ThriftType got;
  uint32_t size;
  WEIR_RETURN_NOT_OK(r->ListBegin(&got, &size));
  if (size > 0) WEIR_RETURN_NOT_OK(Expect(*r, got, element_type, field));
  out->clear();
  // size <= remaining bytes; grow by parsing rather than trusting it for large element types.
  out->reserve(std::min<uint32_t>(size, 1024));
  for (uint32_t i = 0; i < size; ++i) {
    T value{};
    WEIR_RETURN_NOT_OK(read_element(r, &value));
    out->push_back(std::move(value));
  }
  return r->ListEnd();
}

template <typename T>
Status ReadStructList(Reader* r, ThriftType t, const char* field, std::vector<T>* out) {
  return ReadList(r, t, field, ThriftType::kStruct, out,
                  [](Reader* reader, T* value) { return ReadStruct(reader, value); });
}

template <typename E>
Status ReadEnumList(Reader* r, ThriftType t, const char* field, std::vector<E>* out) {
  return ReadList(r, t, field, ThriftType::kI32, out, [](Reader* reader, E* value) {
    int32_t v;
    WEIR_RETURN_NOT_OK(reader->ReadI32(&v));
    *value = static_cast<E>(v);
    return Status::OK();
  });
}

Status ReadStringList(Reader* r, ThriftType t, const char* field, std::vector<std::string>* out) {
  return ReadList(r, t, field, ThriftType::kBinary, out,
                  [](Reader* reader, std::string* value) { return reader->ReadString(value); });
}

// Runs `on_field(type, id)` for each field of a struct; the callback skips what it does not know.
template <typename OnField>
Status ForEachField(Reader* r, OnField on_field) {
  WEIR_RETURN_NOT_OK(r->StructBegin());
  for (;;) {
    ThriftType type;
    int16_t id;
    WEIR_RETURN_NOT_OK(r->FieldBegin(&type, &id));
    if (type == ThriftType::kStop) break;
    WEIR_RETURN_NOT_OK(on_field(type, id));
  }
  return r->StructEnd();
}

// An empty-struct union member such as StringType or TypeDefinedOrder: any content is skipped.
Status ReadUnionMember(Reader* r, ThriftType t, const char* field) {
  WEIR_RETURN_NOT_OK(Expect(*r, t, ThriftType::kStruct, field));
  return r->Skip(t);
}

// ---------------------------------------------------------------------------------------------
// Struct readers.

Status ReadStruct(Reader* r, Statistics* out) {
  return ForEachField(r, [&](ThriftType t, int16_t id) -> Status {
    switch (id) {
      case 1:
        return ReadField(r, t, "Statistics.max", &out->max);
      case 2:
        return ReadField(r, t, "Statistics.min", &out->min);
      case 3:
        return ReadField(r, t, "Statistics.null_count", &out->null_count);
      case 4:
        return ReadField(r, t, "Statistics.distinct_count", &out->distinct_count);
      case 5:
        return ReadField(r, t, "Statistics.max_value", &out->max_value);
      case 6:
        return ReadField(r, t, "Statistics.min_value", &out->min_value);
      case 7:
        return ReadField(r, t, "Statistics.is_max_value_exact", &out->is_max_value_exact);
      case 8:
        return ReadField(r, t, "Statistics.is_min_value_exact", &out->is_min_value_exact);
      case 9:
        return ReadField(r, t, "Statistics.nan_count", &out->nan_count);
      default:
        return r->Skip(t);
    }
  });
}

Status ReadTimeUnit(Reader* r, ThriftType t, const char* field, TimeUnit* out) {
  WEIR_RETURN_NOT_OK(Expect(*r, t, ThriftType::kStruct, field));
  bool found = false;
  WEIR_RETURN_NOT_OK(ForEachField(r, [&](ThriftType member_type, int16_t id) -> Status {
    if (id < 1 || id > 3) {
      return Status::Corruption("unknown TimeUnit member " + std::to_string(id));
    }
    found = true;
    *out = static_cast<TimeUnit>(id);
    return ReadUnionMember(r, member_type, "TimeUnit");
  }));
  if (!found) return Status::Corruption("TimeUnit union has no member");
  return Status::OK();
}

// TimeType and TimestampType share their layout.
Status ReadTimeType(Reader* r, ThriftType t, const char* field, LogicalType* out) {
  WEIR_RETURN_NOT_OK(Expect(*r, t, ThriftType::kStruct, field));
  bool has_utc = false, has_unit = false;
  WEIR_RETURN_NOT_OK(ForEachField(r, [&](ThriftType ft, int16_t id) -> Status {
    switch (id) {
      case 1:
        has_utc = true;
        return ReadField(r, ft, "isAdjustedToUTC", &out->is_adjusted_to_utc);
      case 2:
        has_unit = true;
        return ReadTimeUnit(r, ft, "unit", &out->unit);
      default:
        return r->Skip(ft);
    }
  }));
  if (!has_utc) return Missing("LogicalType.TIME/TIMESTAMP.isAdjustedToUTC");
  if (!has_unit) return Missing("LogicalType.TIME/TIMESTAMP.unit");
  return Status::OK();
}

Status ReadStruct(Reader* r, LogicalType* out) {
  bool found = false;
  WEIR_RETURN_NOT_OK(ForEachField(r, [&](ThriftType t, int16_t id) -> Status {
    if (found) return Status::Corruption("LogicalType union has more than one member");
    found = true;
    out->kind = static_cast<LogicalType::Kind>(id);
    switch (id) {
      case 5: {
        WEIR_RETURN_NOT_OK(Expect(*r, t, ThriftType::kStruct, "LogicalType.DECIMAL"));
        bool has_scale = false, has_precision = false;
        WEIR_RETURN_NOT_OK(ForEachField(r, [&](ThriftType ft, int16_t fid) -> Status {
          switch (fid) {
            case 1:
              has_scale = true;
              return ReadField(r, ft, "DecimalType.scale", &out->scale);
            case 2:
              has_precision = true;
              return ReadField(r, ft, "DecimalType.precision", &out->precision);
            default:
              return r->Skip(ft);
          }
        }));
        if (!has_scale) return Missing("DecimalType.scale");
        if (!has_precision) return Missing("DecimalType.precision");
        return Status::OK();
      }
      case 7:
        return ReadTimeType(r, t, "LogicalType.TIME", out);
      case 8:
        return ReadTimeType(r, t, "LogicalType.TIMESTAMP", out);
      case 10: {
        WEIR_RETURN_NOT_OK(Expect(*r, t, ThriftType::kStruct, "LogicalType.INTEGER"));
        bool has_width = false, has_signed = false;
        WEIR_RETURN_NOT_OK(ForEachField(r, [&](ThriftType ft, int16_t fid) -> Status {
          switch (fid) {
            case 1:
              has_width = true;
              return ReadField(r, ft, "IntType.bitWidth", &out->bit_width);
            case 2:
              has_signed = true;
              return ReadField(r, ft, "IntType.isSigned", &out->is_signed);
            default:
              return r->Skip(ft);
          }
        }));
        if (!has_width) return Missing("IntType.bitWidth");
        if (!has_signed) return Missing("IntType.isSigned");
        return Status::OK();
      }
      default:
        // STRING, MAP, LIST, ENUM, DATE, UNKNOWN, JSON, BSON, UUID, FLOAT16 are empty structs;
        // members weir does not know are kept by id and skipped whatever their type.
        return r->Skip(t);
    }
  }));
  if (!found) return Status::Corruption("LogicalType union has no member");
  return Status::OK();
}

Status ReadStruct(Reader* r, SchemaElement* out) {
  bool has_name = false;
  WEIR_RETURN_NOT_OK(ForEachField(r, [&](ThriftType t, int16_t id) -> Status {
    switch (id) {
      case 1:
        return ReadField(r, t, "SchemaElement.type", &out->type);
      case 2:
        return ReadField(r, t, "SchemaElement.type_length", &out->type_length);
      case 3:
        return ReadField(r, t, "SchemaElement.repetition_type", &out->repetition_type);
      case 4:
        has_name = true;
        return ReadField(r, t, "SchemaElement.name", &out->name);
      case 5:
        return ReadField(r, t, "SchemaElement.num_children", &out->num_children);
      case 6:
        return ReadField(r, t, "SchemaElement.converted_type", &out->converted_type);
      case 7:
        return ReadField(r, t, "SchemaElement.scale", &out->scale);
      case 8:
        return ReadField(r, t, "SchemaElement.precision", &out->precision);
      case 9:
        return ReadField(r, t, "SchemaElement.field_id", &out->field_id);
      case 10:
        return ReadStructField(r, t, "SchemaElement.logicalType", &out->logical_type);
      default:
        return r->Skip(t);
    }
  }));
  if (!has_name) return Missing("SchemaElement.name");
  return Status::OK();
}

Status ReadStruct(Reader* r, KeyValue* out) {
  bool has_key = false;
  WEIR_RETURN_NOT_OK(ForEachField(r, [&](ThriftType t, int16_t id) -> Status {
    switch (id) {
      case 1:
        has_key = true;
        return ReadField(r, t, "KeyValue.key", &out->key);
      case 2:
        return ReadField(r, t, "KeyValue.value", &out->value);
      default:
        return r->Skip(t);
    }
  }));
  if (!has_key) return Missing("KeyValue.key");
  return Status::OK();
}

Status ReadStruct(Reader* r, PageEncodingStats* out) {
  bool has_type = false, has_encoding = false, has_count = false;
  WEIR_RETURN_NOT_OK(ForEachField(r, [&](ThriftType t, int16_t id) -> Status {
    switch (id) {
      case 1:
        has_type = true;
        return ReadField(r, t, "PageEncodingStats.page_type", &out->page_type);
      case 2:
        has_encoding = true;
        return ReadField(r, t, "PageEncodingStats.encoding", &out->encoding);
      case 3:
        has_count = true;
        return ReadField(r, t, "PageEncodingStats.count", &out->count);
      default:
        return r->Skip(t);
    }
  }));
  if (!has_type) return Missing("PageEncodingStats.page_type");
  if (!has_encoding) return Missing("PageEncodingStats.encoding");
  if (!has_count) return Missing("PageEncodingStats.count");
  return Status::OK();
}

Status ReadStruct(Reader* r, ColumnMetaData* out) {
  // encodings is required by the spec, but some writers omit it; it is read as empty then.
  bool has_type = false, has_path = false, has_codec = false, has_num_values = false;
  bool has_uncompressed = false, has_compressed = false, has_data_page_offset = false;
  WEIR_RETURN_NOT_OK(ForEachField(r, [&](ThriftType t, int16_t id) -> Status {
    switch (id) {
      case 1:
        has_type = true;
        return ReadField(r, t, "ColumnMetaData.type", &out->type);
      case 2:
        return ReadEnumList(r, t, "ColumnMetaData.encodings", &out->encodings);
      case 3:
        has_path = true;
        return ReadStringList(r, t, "ColumnMetaData.path_in_schema", &out->path_in_schema);
      case 4:
        has_codec = true;
        return ReadField(r, t, "ColumnMetaData.codec", &out->codec);
      case 5:
        has_num_values = true;
        return ReadField(r, t, "ColumnMetaData.num_values", &out->num_values);
      case 6:
        has_uncompressed = true;
        return ReadField(r, t, "ColumnMetaData.total_uncompressed_size",
                         &out->total_uncompressed_size);
      case 7:
        has_compressed = true;
        return ReadField(r, t, "ColumnMetaData.total_compressed_size", &out->total_compressed_size);
      case 8:
        return ReadStructList(r, t, "ColumnMetaData.key_value_metadata", &out->key_value_metadata);
      case 9:
        has_data_page_offset = true;
        return ReadField(r, t, "ColumnMetaData.data_page_offset", &out->data_page_offset);
      case 10:
        return ReadField(r, t, "ColumnMetaData.index_page_offset", &out->index_page_offset);
      case 11:
        return ReadField(r, t, "ColumnMetaData.dictionary_page_offset",
                         &out->dictionary_page_offset);
      case 12:
        return ReadStructField(r, t, "ColumnMetaData.statistics", &out->statistics);
      case 13:
        return ReadStructList(r, t, "ColumnMetaData.encoding_stats", &out->encoding_stats);
      default:
        return r->Skip(t);
    }
  }));
  if (!has_type) return Missing("ColumnMetaData.type");
  if (!has_path) return Missing("ColumnMetaData.path_in_schema");
  if (!has_codec) return Missing("ColumnMetaData.codec");
  if (!has_num_values) return Missing("ColumnMetaData.num_values");
  if (!has_uncompressed) return Missing("ColumnMetaData.total_uncompressed_size");
  if (!has_compressed) return Missing("ColumnMetaData.total_compressed_size");
  if (!has_data_page_offset) return Missing("ColumnMetaData.data_page_offset");
  return Status::OK();
}

Status ReadStruct(Reader* r, ColumnChunk* out) {
  return ForEachField(r, [&](ThriftType t, int16_t id) -> Status {
    switch (id) {
      case 1:
        return ReadField(r, t, "ColumnChunk.file_path", &out->file_path);
      case 2:
        return ReadField(r, t, "ColumnChunk.file_offset", &out->file_offset);
      case 3:
        return ReadStructField(r, t, "ColumnChunk.meta_data", &out->meta_data);
      default:
        return r->Skip(t);
    }
  });
}

Status ReadStruct(Reader* r, RowGroup* out) {
  bool has_columns = false, has_size = false, has_rows = false;
  WEIR_RETURN_NOT_OK(ForEachField(r, [&](ThriftType t, int16_t id) -> Status {
    switch (id) {
      case 1:
        has_columns = true;
        return ReadStructList(r, t, "RowGroup.columns", &out->columns);
      case 2:
        has_size = true;
        return ReadField(r, t, "RowGroup.total_byte_size", &out->total_byte_size);
      case 3:
        has_rows = true;
        return ReadField(r, t, "RowGroup.num_rows", &out->num_rows);
      case 5:
        return ReadField(r, t, "RowGroup.file_offset", &out->file_offset);
      case 6:
        return ReadField(r, t, "RowGroup.total_compressed_size", &out->total_compressed_size);
      case 7:
        return ReadField(r, t, "RowGroup.ordinal", &out->ordinal);
      default:
        return r->Skip(t);
    }
  }));
  if (!has_columns) return Missing("RowGroup.columns");
  if (!has_size) return Missing("RowGroup.total_byte_size");
  if (!has_rows) return Missing("RowGroup.num_rows");
  return Status::OK();
}

Status ReadColumnOrders(Reader* r, ThriftType t, std::vector<ColumnOrder>* out) {
  return ReadList(r, t, "FileMetaData.column_orders", ThriftType::kStruct, out,
                  [](Reader* reader, ColumnOrder* value) -> Status {
                    bool found = false;
                    WEIR_RETURN_NOT_OK(ForEachField(reader, [&](ThriftType mt, int16_t id) {
                      found = true;
                      *value = static_cast<ColumnOrder>(id);
                      return reader->Skip(mt);
                    }));
                    if (!found) return Status::Corruption("ColumnOrder union has no member");
                    return Status::OK();
                  });
}

Status ReadStruct(Reader* r, FileMetaData* out) {
  bool has_version = false, has_schema = false, has_rows = false, has_row_groups = false;
  WEIR_RETURN_NOT_OK(ForEachField(r, [&](ThriftType t, int16_t id) -> Status {
    switch (id) {
      case 1:
        has_version = true;
        return ReadField(r, t, "FileMetaData.version", &out->version);
      case 2:
        has_schema = true;
        return ReadStructList(r, t, "FileMetaData.schema", &out->schema);
      case 3:
        has_rows = true;
        return ReadField(r, t, "FileMetaData.num_rows", &out->num_rows);
      case 4:
        has_row_groups = true;
        return ReadStructList(r, t, "FileMetaData.row_groups", &out->row_groups);
      case 5:
        return ReadStructList(r, t, "FileMetaData.key_value_metadata", &out->key_value_metadata);
      case 6:
        return ReadField(r, t, "FileMetaData.created_by", &out->created_by);
      case 7:
        return ReadColumnOrders(r, t, &out->column_orders);
      default:
        return r->Skip(t);
    }
  }));
  if (!has_version) return Missing("FileMetaData.version");
  if (!has_schema) return Missing("FileMetaData.schema");
  if (!has_rows) return Missing("FileMetaData.num_rows");
  if (!has_row_groups) return Missing("FileMetaData.row_groups");
  return Status::OK();
}

Status ReadStruct(Reader* r, DataPageHeader* out) {
  bool has_num = false, has_enc = false, has_def = false, has_rep = false;
  WEIR_RETURN_NOT_OK(ForEachField(r, [&](ThriftType t, int16_t id) -> Status {
    switch (id) {
      case 1:
        has_num = true;
        return ReadField(r, t, "DataPageHeader.num_values", &out->num_values);
      case 2:
        has_enc = true;
        return ReadField(r, t, "DataPageHeader.encoding", &out->encoding);
      case 3:
        has_def = true;
        return ReadField(r, t, "DataPageHeader.definition_level_encoding",
                         &out->definition_level_encoding);
      case 4:
        has_rep = true;
        return ReadField(r, t, "DataPageHeader.repetition_level_encoding",
                         &out->repetition_level_encoding);
      case 5:
        return ReadStructField(r, t, "DataPageHeader.statistics", &out->statistics);
      default:
        return r->Skip(t);
    }
  }));
  if (!has_num) return Missing("DataPageHeader.num_values");
  if (!has_enc) return Missing("DataPageHeader.encoding");
  if (!has_def) return Missing("DataPageHeader.definition_level_encoding");
  if (!has_rep) return Missing("DataPageHeader.repetition_level_encoding");
  return Status::OK();
}

Status ReadStruct(Reader* r, DictionaryPageHeader* out) {
  bool has_num = false, has_enc = false;
  WEIR_RETURN_NOT_OK(ForEachField(r, [&](ThriftType t, int16_t id) -> Status {
    switch (id) {
      case 1:
        has_num = true;
        return ReadField(r, t, "DictionaryPageHeader.num_values", &out->num_values);
      case 2:
        has_enc = true;
        return ReadField(r, t, "DictionaryPageHeader.encoding", &out->encoding);
      case 3:
        return ReadField(r, t, "DictionaryPageHeader.is_sorted", &out->is_sorted);
      default:
        return r->Skip(t);
    }
  }));
  if (!has_num) return Missing("DictionaryPageHeader.num_values");
  if (!has_enc) return Missing("DictionaryPageHeader.encoding");
  return Status::OK();
}

Status ReadStruct(Reader* r, DataPageHeaderV2* out) {
  bool has[7] = {};
  WEIR_RETURN_NOT_OK(ForEachField(r, [&](ThriftType t, int16_t id) -> Status {
    if (id >= 1 && id <= 6) has[id] = true;
    switch (id) {
      case 1:
        return ReadField(r, t, "DataPageHeaderV2.num_values", &out->num_values);
      case 2:
        return ReadField(r, t, "DataPageHeaderV2.num_nulls", &out->num_nulls);
      case 3:
        return ReadField(r, t, "DataPageHeaderV2.num_rows", &out->num_rows);
      case 4:
        return ReadField(r, t, "DataPageHeaderV2.encoding", &out->encoding);
      case 5:
        return ReadField(r, t, "DataPageHeaderV2.definition_levels_byte_length",
                         &out->definition_levels_byte_length);
      case 6:
        return ReadField(r, t, "DataPageHeaderV2.repetition_levels_byte_length",
                         &out->repetition_levels_byte_length);
      case 7:
        return ReadField(r, t, "DataPageHeaderV2.is_compressed", &out->is_compressed);
      case 8:
        return ReadStructField(r, t, "DataPageHeaderV2.statistics", &out->statistics);
      default:
        return r->Skip(t);
    }
  }));
  static constexpr const char* kNames[7] = {
      "",
      "DataPageHeaderV2.num_values",
      "DataPageHeaderV2.num_nulls",
      "DataPageHeaderV2.num_rows",
      "DataPageHeaderV2.encoding",
      "DataPageHeaderV2.definition_levels_byte_length",
      "DataPageHeaderV2.repetition_levels_byte_length",
  };
  for (int i = 1; i <= 6; ++i) {
    if (!has[i]) return Missing(kNames[i]);
  }
  return Status::OK();
}

Status ReadStruct(Reader* r, PageHeader* out) {
  bool has_type = false, has_uncompressed = false, has_compressed = false;
  WEIR_RETURN_NOT_OK(ForEachField(r, [&](ThriftType t, int16_t id) -> Status {
    switch (id) {
      case 1:
        has_type = true;
        return ReadField(r, t, "PageHeader.type", &out->type);
      case 2:
        has_uncompressed = true;
        return ReadField(r, t, "PageHeader.uncompressed_page_size", &out->uncompressed_page_size);
      case 3:
        has_compressed = true;
        return ReadField(r, t, "PageHeader.compressed_page_size", &out->compressed_page_size);
      case 4:
        return ReadField(r, t, "PageHeader.crc", &out->crc);
      case 5:
        return ReadStructField(r, t, "PageHeader.data_page_header", &out->data_page_header);
      case 7:
        return ReadStructField(r, t, "PageHeader.dictionary_page_header",
                               &out->dictionary_page_header);
      case 8:
        return ReadStructField(r, t, "PageHeader.data_page_header_v2", &out->data_page_header_v2);
      default:
        return r->Skip(t);  // includes index_page_header (6)
    }
  }));
  if (!has_type) return Missing("PageHeader.type");
  if (!has_uncompressed) return Missing("PageHeader.uncompressed_page_size");
  if (!has_compressed) return Missing("PageHeader.compressed_page_size");
  return Status::OK();
}

template <typename S>
Status ParseTop(std::span<const uint8_t> bytes, S* out, size_t* consumed, const char* name) {
  *out = S{};
  Reader reader(bytes);
  Status st = ReadStruct(&reader, out);
  if (!st.ok()) return st.WithContext("parquet " + std::string(name));
  if (consumed != nullptr) *consumed = reader.position();
  return Status::OK();
}

// ---------------------------------------------------------------------------------------------
// Writers. Fields go in ascending id order so every header is one byte.

template <typename E>
int32_t Raw(E e) {
  return static_cast<int32_t>(e);
}

void WriteStruct(Writer* w, const Statistics& s);
void WriteStruct(Writer* w, const LogicalType& t);
void WriteStruct(Writer* w, const SchemaElement& e);
void WriteStruct(Writer* w, const KeyValue& kv);
void WriteStruct(Writer* w, const PageEncodingStats& s);
void WriteStruct(Writer* w, const ColumnMetaData& m);
void WriteStruct(Writer* w, const ColumnChunk& c);
void WriteStruct(Writer* w, const RowGroup& g);
void WriteStruct(Writer* w, const FileMetaData& f);
void WriteStruct(Writer* w, const DataPageHeader& h);
void WriteStruct(Writer* w, const DictionaryPageHeader& h);
void WriteStruct(Writer* w, const DataPageHeaderV2& h);
void WriteStruct(Writer* w, const PageHeader& h);

// A struct-valued field: its header, then the struct.
template <typename S>
void WriteStructField(Writer* w, int16_t id, const S& value) {
  w->FieldStructHeader(id);
  WriteStruct(w, value);
}

void WriteStruct(Writer* w, const Statistics& s) {
  w->StructBegin();
  if (s.max) w->FieldBinary(1, *s.max);
  if (s.min) w->FieldBinary(2, *s.min);
  if (s.null_count) w->FieldI64(3, *s.null_count);
  if (s.distinct_count) w->FieldI64(4, *s.distinct_count);
  if (s.max_value) w->FieldBinary(5, *s.max_value);
  if (s.min_value) w->FieldBinary(6, *s.min_value);
  if (s.is_max_value_exact) w->FieldBool(7, *s.is_max_value_exact);
  if (s.is_min_value_exact) w->FieldBool(8, *s.is_min_value_exact);
  if (s.nan_count) w->FieldI64(9, *s.nan_count);
  w->StructEnd();
}

void WriteStruct(Writer* w, const LogicalType& t) {
  w->StructBegin();
  w->FieldStructBegin(static_cast<int16_t>(t.kind));
  switch (t.kind) {
    case LogicalType::Kind::kDecimal:
      w->FieldI32(1, t.scale);
      w->FieldI32(2, t.precision);
      break;
    case LogicalType::Kind::kTime:
    case LogicalType::Kind::kTimestamp:
      w->FieldBool(1, t.is_adjusted_to_utc);
      w->FieldStructBegin(2);  // TimeUnit union
      w->FieldStructBegin(static_cast<int16_t>(t.unit));
      w->StructEnd();
      w->StructEnd();
      break;
    case LogicalType::Kind::kInteger:
      w->FieldI8(1, t.bit_width);
      w->FieldBool(2, t.is_signed);
      break;
    default:
      break;  // an empty struct
  }
  w->StructEnd();
  w->StructEnd();
}

void WriteStruct(Writer* w, const SchemaElement& e) {
  w->StructBegin();
  if (e.type) w->FieldI32(1, Raw(*e.type));
  if (e.type_length) w->FieldI32(2, *e.type_length);
  if (e.repetition_type) w->FieldI32(3, Raw(*e.repetition_type));
  w->FieldBinary(4, e.name);
  if (e.num_children) w->FieldI32(5, *e.num_children);
  if (e.converted_type) w->FieldI32(6, Raw(*e.converted_type));
  if (e.scale) w->FieldI32(7, *e.scale);
  if (e.precision) w->FieldI32(8, *e.precision);
  if (e.field_id) w->FieldI32(9, *e.field_id);
  if (e.logical_type) WriteStructField(w, 10, *e.logical_type);
  w->StructEnd();
}

void WriteStruct(Writer* w, const KeyValue& kv) {
  w->StructBegin();
  w->FieldBinary(1, kv.key);
  if (kv.value) w->FieldBinary(2, *kv.value);
  w->StructEnd();
}

void WriteStruct(Writer* w, const PageEncodingStats& s) {
  w->StructBegin();
  w->FieldI32(1, Raw(s.page_type));
  w->FieldI32(2, Raw(s.encoding));
  w->FieldI32(3, s.count);
  w->StructEnd();
}

template <typename T>
void WriteStructList(Writer* w, int16_t id, const std::vector<T>& items) {
  w->FieldListBegin(id, ThriftType::kStruct, static_cast<uint32_t>(items.size()));
  for (const T& item : items) WriteStruct(w, item);
}

void WriteStruct(Writer* w, const ColumnMetaData& m) {
  w->StructBegin();
  w->FieldI32(1, Raw(m.type));
  w->FieldListBegin(2, ThriftType::kI32, static_cast<uint32_t>(m.encodings.size()));
  for (Encoding e : m.encodings) w->I32(Raw(e));
  w->FieldListBegin(3, ThriftType::kBinary, static_cast<uint32_t>(m.path_in_schema.size()));
  for (const std::string& p : m.path_in_schema) w->Binary(p);
  w->FieldI32(4, Raw(m.codec));
  w->FieldI64(5, m.num_values);
  w->FieldI64(6, m.total_uncompressed_size);
  w->FieldI64(7, m.total_compressed_size);
  if (!m.key_value_metadata.empty()) WriteStructList(w, 8, m.key_value_metadata);
  w->FieldI64(9, m.data_page_offset);
  if (m.index_page_offset) w->FieldI64(10, *m.index_page_offset);
  if (m.dictionary_page_offset) w->FieldI64(11, *m.dictionary_page_offset);
  if (m.statistics) WriteStructField(w, 12, *m.statistics);
  if (!m.encoding_stats.empty()) WriteStructList(w, 13, m.encoding_stats);
  w->StructEnd();
}

void WriteStruct(Writer* w, const ColumnChunk& c) {
  w->StructBegin();
  if (c.file_path) w->FieldBinary(1, *c.file_path);
  w->FieldI64(2, c.file_offset);
  if (c.meta_data) WriteStructField(w, 3, *c.meta_data);
  w->StructEnd();
}

void WriteStruct(Writer* w, const RowGroup& g) {
  w->StructBegin();
  WriteStructList(w, 1, g.columns);
  w->FieldI64(2, g.total_byte_size);
  w->FieldI64(3, g.num_rows);
  if (g.file_offset) w->FieldI64(5, *g.file_offset);
  if (g.total_compressed_size) w->FieldI64(6, *g.total_compressed_size);
  if (g.ordinal) w->FieldI16(7, *g.ordinal);
  w->StructEnd();
}

void WriteStruct(Writer* w, const FileMetaData& f) {
  w->StructBegin();
  w->FieldI32(1, f.version);
  WriteStructList(w, 2, f.schema);
  w->FieldI64(3, f.num_rows);
  WriteStructList(w, 4, f.row_groups);
  if (!f.key_value_metadata.empty()) WriteStructList(w, 5, f.key_value_metadata);
  if (f.created_by) w->FieldBinary(6, *f.created_by);
  if (!f.column_orders.empty()) {
    w->FieldListBegin(7, ThriftType::kStruct, static_cast<uint32_t>(f.column_orders.size()));
    for (ColumnOrder order : f.column_orders) {
      w->StructBegin();
      w->FieldStructBegin(static_cast<int16_t>(order));  // e.g. TypeDefinedOrder {}
      w->StructEnd();
      w->StructEnd();
    }
  }
  w->StructEnd();
}

void WriteStruct(Writer* w, const DataPageHeader& h) {
  w->StructBegin();
  w->FieldI32(1, h.num_values);
  w->FieldI32(2, Raw(h.encoding));
  w->FieldI32(3, Raw(h.definition_level_encoding));
  w->FieldI32(4, Raw(h.repetition_level_encoding));
  if (h.statistics) WriteStructField(w, 5, *h.statistics);
  w->StructEnd();
}

void WriteStruct(Writer* w, const DictionaryPageHeader& h) {
  w->StructBegin();
  w->FieldI32(1, h.num_values);
  w->FieldI32(2, Raw(h.encoding));
  if (h.is_sorted) w->FieldBool(3, *h.is_sorted);
  w->StructEnd();
}

void WriteStruct(Writer* w, const DataPageHeaderV2& h) {
  w->StructBegin();
  w->FieldI32(1, h.num_values);
  w->FieldI32(2, h.num_nulls);
  w->FieldI32(3, h.num_rows);
  w->FieldI32(4, Raw(h.encoding));
  w->FieldI32(5, h.definition_levels_byte_length);
  w->FieldI32(6, h.repetition_levels_byte_length);
  w->FieldBool(7, h.is_compressed);
  if (h.statistics) WriteStructField(w, 8, *h.statistics);
  w->StructEnd();
}

void WriteStruct(Writer* w, const PageHeader& h) {
  w->StructBegin();
  w->FieldI32(1, Raw(h.type));
  w->FieldI32(2, h.uncompressed_page_size);
  w->FieldI32(3, h.compressed_page_size);
  if (h.crc) w->FieldI32(4, *h.crc);
  if (h.data_page_header) WriteStructField(w, 5, *h.data_page_header);
  if (h.dictionary_page_header) WriteStructField(w, 7, *h.dictionary_page_header);
  if (h.data_page_header_v2) WriteStructField(w, 8, *h.data_page_header_v2);
  w->StructEnd();
}

template <typename S>
void SerializeTop(const S& value, std::string* out) {
  Writer writer(out);
  WriteStruct(&writer, value);
}

}  // namespace

Status Parse(std::span<const uint8_t> bytes, FileMetaData* out, size_t* consumed) {
  return ParseTop(bytes, out, consumed, "FileMetaData");
}
Status Parse(std::span<const uint8_t> bytes, PageHeader* out, size_t* consumed) {
  return ParseTop(bytes, out, consumed, "PageHeader");
}
Status Parse(std::span<const uint8_t> bytes, SchemaElement* out, size_t* consumed) {
  return ParseTop(bytes, out, consumed, "SchemaElement");
}
Status Parse(std::span<const uint8_t> bytes, RowGroup* out, size_t* consumed) {
  return ParseTop(bytes, out, consumed, "RowGroup");
}
Status Parse(std::span<const uint8_t> bytes, ColumnChunk* out, size_t* consumed) {
  return ParseTop(bytes, out, consumed, "ColumnChunk");
}
Status Parse(std::span<const uint8_t> bytes, ColumnMetaData* out, size_t* consumed) {
  return ParseTop(bytes, out, consumed, "ColumnMetaData");
}
Status Parse(std::span<const uint8_t> bytes, Statistics* out, size_t* consumed) {
  return ParseTop(bytes, out, consumed, "Statistics");
}
Status Parse(std::span<const uint8_t> bytes, KeyValue* out, size_t* consumed) {
  return ParseTop(bytes, out, consumed, "KeyValue");
}
Status Parse(std::span<const uint8_t> bytes, LogicalType* out, size_t* consumed) {
  return ParseTop(bytes, out, consumed, "LogicalType");
}
Status Parse(std::span<const uint8_t> bytes, DataPageHeader* out, size_t* consumed) {
  return ParseTop(bytes, out, consumed, "DataPageHeader");
}
Status Parse(std::span<const uint8_t> bytes, DictionaryPageHeader* out, size_t* consumed) {
  return ParseTop(bytes, out, consumed, "DictionaryPageHeader");
}
Status Parse(std::span<const uint8_t> bytes, DataPageHeaderV2* out, size_t* consumed) {
  return ParseTop(bytes, out, consumed, "DataPageHeaderV2");
}
Status Parse(std::span<const uint8_t> bytes, PageEncodingStats* out, size_t* consumed) {
  return ParseTop(bytes, out, consumed, "PageEncodingStats");
}

void Serialize(const FileMetaData& value, std::string* out) { SerializeTop(value, out); }
void Serialize(const PageHeader& value, std::string* out) { SerializeTop(value, out); }
void Serialize(const SchemaElement& value, std::string* out) { SerializeTop(value, out); }
void Serialize(const RowGroup& value, std::string* out) { SerializeTop(value, out); }
void Serialize(const ColumnChunk& value, std::string* out) { SerializeTop(value, out); }
void Serialize(const ColumnMetaData& value, std::string* out) { SerializeTop(value, out); }
void Serialize(const Statistics& value, std::string* out) { SerializeTop(value, out); }
void Serialize(const KeyValue& value, std::string* out) { SerializeTop(value, out); }
void Serialize(const LogicalType& value, std::string* out) { SerializeTop(value, out); }
void Serialize(const DataPageHeader& value, std::string* out) { SerializeTop(value, out); }
void Serialize(const DictionaryPageHeader& value, std::string* out) { SerializeTop(value, out); }
void Serialize(const DataPageHeaderV2& value, std::string* out) { SerializeTop(value, out); }
void Serialize(const PageEncodingStats& value, std::string* out) { SerializeTop(value, out); }

std::string_view TypeName(Type type) {
  switch (type) {
    case Type::kBoolean:
      return "BOOLEAN";
    case Type::kInt32:
      return "INT32";
    case Type::kInt64:
      return "INT64";
    case Type::kInt96:
      return "INT96";
    case Type::kFloat:
      return "FLOAT";
    case Type::kDouble:
      return "DOUBLE";
    case Type::kByteArray:
      return "BYTE_ARRAY";
    case Type::kFixedLenByteArray:
      return "FIXED_LEN_BYTE_ARRAY";
  }
  return "UNKNOWN";
}

std::string_view EncodingName(Encoding encoding) {
  switch (encoding) {
    case Encoding::kPlain:
      return "PLAIN";
    case Encoding::kPlainDictionary:
      return "PLAIN_DICTIONARY";
    case Encoding::kRle:
      return "RLE";
    case Encoding::kBitPacked:
      return "BIT_PACKED";
    case Encoding::kDeltaBinaryPacked:
      return "DELTA_BINARY_PACKED";
    case Encoding::kDeltaLengthByteArray:
      return "DELTA_LENGTH_BYTE_ARRAY";
    case Encoding::kDeltaByteArray:
      return "DELTA_BYTE_ARRAY";
    case Encoding::kRleDictionary:
      return "RLE_DICTIONARY";
    case Encoding::kByteStreamSplit:
      return "BYTE_STREAM_SPLIT";
  }
  return "UNKNOWN";
}

std::string_view CompressionCodecName(CompressionCodec codec) {
  switch (codec) {
    case CompressionCodec::kUncompressed:
      return "UNCOMPRESSED";
    case CompressionCodec::kSnappy:
      return "SNAPPY";
    case CompressionCodec::kGzip:
      return "GZIP";
    case CompressionCodec::kLzo:
      return "LZO";
    case CompressionCodec::kBrotli:
      return "BROTLI";
    case CompressionCodec::kLz4:
      return "LZ4";
    case CompressionCodec::kZstd:
      return "ZSTD";
    case CompressionCodec::kLz4Raw:
      return "LZ4_RAW";
  }
  return "UNKNOWN";
}

}  // namespace weir::parquet
