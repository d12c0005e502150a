#include "columnar/json_lines.h"

#include <charconv>
#include <cmath>

#include "columnar/text_format.h"

namespace weir::columnar {

namespace {

constexpr int64_t kMaxSafeInteger = 9007199254740992LL;  // 2^53

template <typename T>
void AppendFloat(T v, bool quote_specials, std::string* out) {
  if (std::isnan(v)) {
    out->append(quote_specials ? "\"NaN\"" : "NaN");
    return;
  }
  if (std::isinf(v)) {
    out->append(v > 0 ? (quote_specials ? "\"Infinity\"" : "Infinity")
                      : (quote_specials ? "\"-Infinity\"" : "-Infinity"));
    return;
  }
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, res.ptr - buf);
}

void AppendInt(int64_t v, std::string* out) {
  char buf[24];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, res.ptr - buf);
}

// Shared by JSON and text forms; `json` selects quoting and nesting syntax.
void AppendValue(const Column& c, int64_t row, bool json, std::string* out) {
  if (c.IsNull(row)) {
    out->append(json ? "null" : "");
    return;
  }
  switch (c.type_id()) {
    case TypeId::kBoolean:
      out->append(c.Value<uint8_t>(row) ? "true" : "false");
      return;
    case TypeId::kInt8: AppendInt(c.Value<int8_t>(row), out); return;
    case TypeId::kInt16: AppendInt(c.Value<int16_t>(row), out); return;
    case TypeId::kInt32: AppendInt(c.Value<int32_t>(row), out); return;
    case TypeId::kInt64: {
      int64_t v = c.Value<int64_t>(row);
      bool quote = json && (v > kMaxSafeInteger || v < -kMaxSafeInteger);
      if (quote) out->push_back('"');
      AppendInt(v, out);
      if (quote) out->push_back('"');
      return;
    }
    case TypeId::kFloat: AppendFloat(c.Value<float>(row), json, out); return;
    case TypeId::kDouble: AppendFloat(c.Value<double>(row), json, out); return;
    case TypeId::kDecimal:
      if (json) out->push_back('"');
      AppendDecimal(c.Value<Int128>(row), c.type()->scale(), out);
      if (json) out->push_back('"');
      return;
    case TypeId::kString:
      if (json) {
        AppendJsonString(c.StringAt(row), out);
      } else {
        out->append(c.StringAt(row));
      }
      return;
    case TypeId::kBinary:
      if (json) out->push_back('"');
      AppendBase64(c.StringAt(row), out);
      if (json) out->push_back('"');
      return;
    case TypeId::kDate:
      if (json) out->push_back('"');
      AppendDate(c.Value<int32_t>(row), out);
      if (json) out->push_back('"');
      return;
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      if (json) out->push_back('"');
      AppendTimestampMicros(c.Value<int64_t>(row), out);
      if (c.type_id() == TypeId::kTimestampNtz) out->pop_back();  // no zone: drop the 'Z'
      if (json) out->push_back('"');
      return;
    case TypeId::kStruct: {
      out->push_back('{');
      const auto& fields = c.type()->children();
      for (size_t i = 0; i < fields.size(); ++i) {
        if (i > 0) out->push_back(',');
        AppendJsonString(fields[i].name, out);
        out->push_back(':');
        AppendValue(c.child(static_cast<int>(i)), row, true, out);
      }
      out->push_back('}');
      return;
    }
    case TypeId::kList: {
      out->push_back('[');
      for (int32_t j = c.offsets()[row]; j < c.offsets()[row + 1]; ++j) {
        if (j > c.offsets()[row]) out->push_back(',');
        AppendValue(c.child(0), j, true, out);
      }
      out->push_back(']');
      return;
    }
    case TypeId::kMap: {
      out->push_back('{');
      for (int32_t j = c.offsets()[row]; j < c.offsets()[row + 1]; ++j) {
        if (j > c.offsets()[row]) out->push_back(',');
        std::string key;
        AppendValue(c.child(0), j, false, &key);
        AppendJsonString(key, out);
        out->push_back(':');
        AppendValue(c.child(1), j, true, out);
      }
      out->push_back('}');
      return;
    }
  }
}

}  // namespace

void AppendJsonValue(const Column& column, int64_t row, std::string* out) {
  AppendValue(column, row, true, out);
}

void AppendTextValue(const Column& column, int64_t row, std::string* out) {
  AppendValue(column, row, false, out);
}

void AppendJsonRow(const Batch& batch, int64_t row, std::string* out) {
  out->push_back('{');
  for (size_t i = 0; i < batch.columns.size(); ++i) {
    if (i > 0) out->push_back(',');
    AppendJsonString(batch.schema.fields[i].name, out);
    out->push_back(':');
    AppendValue(batch.columns[i], row, true, out);
  }
  out->push_back('}');
}

}  // namespace weir::columnar
