// Deterministic batches covering every type weir writes (nulls, empty strings, nested values, every
// decimal width), shared by unit tests and the round-trip test generator. Test support only.
#pragma once

#include <random>
#include <string>

#include "columnar/column.h"

namespace weir::parquet {

using columnar::Batch;
using columnar::Column;
using columnar::Int128;
using columnar::Schema;

inline Batch AllTypesBatch(int rows, uint32_t seed) {
  Schema schema = columnar::ParseDdlSchema(
      "b BOOLEAN, i8 TINYINT, i16 SMALLINT, i32 INT, i64 BIGINT NOT NULL, f FLOAT, d DOUBLE, "
      "d9 DECIMAL(9,2), d18 DECIMAL(18,4), d38 DECIMAL(38,10), s STRING, bin BINARY, dt DATE, "
      "ts TIMESTAMP, ntz TIMESTAMP_NTZ, tags ARRAY<STRING>, m MAP<STRING, BIGINT>, "
      "st STRUCT<x: INT, y: ARRAY<STRUCT<z: STRING>>>")
                      .ValueOrDie();
  Batch b(schema);
  std::mt19937_64 rng(seed);
  auto null = [&] { return rng() % 7 == 0; };
  for (int r = 0; r < rows; ++r) {
    auto& c = b.columns;
    null() ? c[0].AppendNull() : c[0].Append<uint8_t>(rng() % 2);
    null() ? c[1].AppendNull() : c[1].Append<int8_t>(static_cast<int8_t>(rng()));
    null() ? c[2].AppendNull() : c[2].Append<int16_t>(static_cast<int16_t>(rng()));
    null() ? c[3].AppendNull() : c[3].Append<int32_t>(static_cast<int32_t>(rng() % 100));
    c[4].Append<int64_t>(static_cast<int64_t>(rng()));
    null() ? c[5].AppendNull() : c[5].Append<float>(static_cast<float>(rng() % 1000) / 8);
    null() ? c[6].AppendNull() : c[6].Append<double>(static_cast<double>(static_cast<int64_t>(rng())) / 3);
    null() ? c[7].AppendNull() : c[7].Append<Int128>(static_cast<int64_t>(rng() % 999999999) - 499999999);
    null() ? c[8].AppendNull() : c[8].Append<Int128>(static_cast<int64_t>(rng() % 999999999999999999LL) * (rng() % 2 ? 1 : -1));
    null() ? c[9].AppendNull() : c[9].Append<Int128>((static_cast<Int128>(static_cast<int64_t>(rng())) << 60) / 7);
    null() ? c[10].AppendNull() : c[10].AppendString(r % 5 == 0 ? "" : "value-" + std::to_string(rng() % 50));
    null() ? c[11].AppendNull() : c[11].AppendString(std::string("\0\x01\xff", 3) + std::to_string(r));
    null() ? c[12].AppendNull() : c[12].Append<int32_t>(static_cast<int32_t>(rng() % 40000) - 20000);
    null() ? c[13].AppendNull() : c[13].Append<int64_t>(static_cast<int64_t>(rng() % (1LL << 52)) - (1LL << 51));
    null() ? c[14].AppendNull() : c[14].Append<int64_t>(static_cast<int64_t>(rng() % (1LL << 50)));
    if (null()) {
      c[15].AppendNull();
    } else {
      int n = rng() % 4;
      for (int j = 0; j < n; ++j) {
        if (rng() % 5 == 0) {
          c[15].mutable_child(0).AppendNull();
        } else {
          c[15].mutable_child(0).AppendString("t" + std::to_string(j));
        }
      }
      c[15].AppendListEntry();
    }
    if (null()) {
      c[16].AppendNull();
    } else {
      int n = rng() % 3;
      for (int j = 0; j < n; ++j) {
        c[16].mutable_child(0).AppendString("k" + std::to_string(j));
        c[16].mutable_child(1).Append<int64_t>(j * 10);
      }
      c[16].AppendListEntry();
    }
    if (null()) {
      c[17].AppendNull();
    } else {
      Column& st = c[17];
      st.mutable_child(0).Append<int32_t>(r);
      Column& y = st.mutable_child(1);
      int n = rng() % 3;
      for (int j = 0; j < n; ++j) {
        y.mutable_child(0).mutable_child(0).AppendString("z" + std::to_string(j));
        y.mutable_child(0).AppendStructEntry();
      }
      y.AppendListEntry();
      st.AppendStructEntry();
    }
  }
  return b;
}


}  // namespace weir::parquet
