#include "parquet/writer.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <variant>

#include "compress/background.h"
#include "parquet/bytes.h"
#include "parquet/encoding.h"
#include "parquet/levels.h"

namespace weir::parquet {

using columnar::Column;
using columnar::Int128;
using columnar::TypeId;

namespace {

constexpr int64_t kRowsPerSlice = 16384;     // rows shredded at a time
constexpr int64_t kEntriesPerCheck = 4096;   // level entries added between page-size checks
constexpr size_t kMaxStatBytes = 64;         // longer byte-array min/max are truncated
// Values a column chunk sends through its dictionary before the writer checks that the
// dictionary pays off (see ColumnWriter::CheckDictionaryPaysOff).
constexpr int64_t kDictionaryProbeValues = 8192;
// Data pages of one column being compressed in the background before the writer waits for the
// oldest (bounds memory to a few uncompressed pages per column).
constexpr size_t kPagesInFlight = 3;

// The physical form a leaf's values take in the file.
enum class Physical { kBool, kInt32, kInt64, kFloat, kDouble, kBytes, kDecimalBytes };

Physical PhysicalOf(const LeafDescriptor& leaf) {
  switch (leaf.physical_type) {
    case Type::kBoolean: return Physical::kBool;
    case Type::kInt32: return Physical::kInt32;
    case Type::kInt64: return Physical::kInt64;
    case Type::kFloat: return Physical::kFloat;
    case Type::kDouble: return Physical::kDouble;
    case Type::kFixedLenByteArray: return Physical::kDecimalBytes;
    default: return Physical::kBytes;
  }
}

// Running min/max in the column's sort order.
class MinMax {
 public:
  explicit MinMax(Physical p) : physical_(p) {}

  void UpdateInts(const int64_t* v, int64_t n) {
    for (int64_t i = 0; i < n; ++i) TakeInt(v[i]);
  }
  void UpdateInt(int64_t v) { TakeInt(v); }
  void UpdateDouble(double v) {
    if (std::isnan(v)) return;  // NaN takes no part in min/max
    if (!has_) {
      dmin_ = dmax_ = v;
      has_ = true;
      return;
    }
    if (v < dmin_) dmin_ = v;
    if (v > dmax_) dmax_ = v;
  }
  void UpdateBytes(std::string_view v) {
    if (!has_ || v < std::string_view(smin_)) smin_.assign(v);
    if (!has_ || v > std::string_view(smax_)) smax_.assign(v);
    has_ = true;
  }
  void UpdateDecimal(Int128 v) {
    if (!has_ || v < qmin_) qmin_ = v;
    if (!has_ || v > qmax_) qmax_ = v;
    has_ = true;
  }
  void Merge(const MinMax& o) {
    if (!o.has_) return;
    switch (physical_) {
      case Physical::kBool:
      case Physical::kInt32:
      case Physical::kInt64: TakeInt(o.imin_); TakeInt(o.imax_); break;
      case Physical::kFloat:
      case Physical::kDouble: UpdateDouble(o.dmin_); UpdateDouble(o.dmax_); break;
      case Physical::kBytes: UpdateBytes(o.smin_); UpdateBytes(o.smax_); break;
      case Physical::kDecimalBytes: UpdateDecimal(o.qmin_); UpdateDecimal(o.qmax_); break;
    }
  }
  bool has() const { return has_; }
  void Reset() { has_ = false; }

  // Parquet statistics bytes (PLAIN encoding of the physical value).
  void ToParquet(const LeafDescriptor& leaf, Statistics* out) const {
    if (!has_) return;
    std::string min, max;
    bool max_exact = true, min_exact = true;
    switch (physical_) {
      case Physical::kBool:
        min.assign(1, static_cast<char>(imin_));
        max.assign(1, static_cast<char>(imax_));
        break;
      case Physical::kInt32: {
        int32_t a = static_cast<int32_t>(imin_), b = static_cast<int32_t>(imax_);
        min.assign(reinterpret_cast<const char*>(&a), 4);
        max.assign(reinterpret_cast<const char*>(&b), 4);
        break;
      }
      case Physical::kInt64:
        min.assign(reinterpret_cast<const char*>(&imin_), 8);
        max.assign(reinterpret_cast<const char*>(&imax_), 8);
        break;
      case Physical::kFloat: {
        float a = static_cast<float>(dmin_), b = static_cast<float>(dmax_);
        if (a == 0) a = -0.0f;  // the spec's rule for signed zeros
        if (b == 0) b = 0.0f;
        min.assign(reinterpret_cast<const char*>(&a), 4);
        max.assign(reinterpret_cast<const char*>(&b), 4);
        break;
      }
      case Physical::kDouble: {
        double a = dmin_, b = dmax_;
        if (a == 0) a = -0.0;
        if (b == 0) b = 0.0;
        min.assign(reinterpret_cast<const char*>(&a), 8);
        max.assign(reinterpret_cast<const char*>(&b), 8);
        break;
      }
      case Physical::kBytes:
        min = smin_;
        max = smax_;
        if (min.size() > kMaxStatBytes) {
          min.resize(kMaxStatBytes);  // a prefix is still a lower bound
          min_exact = false;
        }
        if (max.size() > kMaxStatBytes) {
          // Truncate and increment the last byte that can be incremented: an upper bound.
          max.resize(kMaxStatBytes);
          while (!max.empty() && static_cast<uint8_t>(max.back()) == 0xff) max.pop_back();
          if (max.empty()) return;  // no short upper bound exists; write no min/max
          max.back() = static_cast<char>(static_cast<uint8_t>(max.back()) + 1);
          max_exact = false;
        }
        break;
      case Physical::kDecimalBytes:
        min = BigEndian(qmin_, leaf.type_length);
        max = BigEndian(qmax_, leaf.type_length);
        break;
    }
    out->min_value = std::move(min);
    out->max_value = std::move(max);
    if (physical_ == Physical::kBytes) {
      out->is_min_value_exact = min_exact;
      out->is_max_value_exact = max_exact;
    }
  }

  // Appends min and max as two rows of a column of the leaf's columnar type.
  void ToColumn(const LeafDescriptor& leaf, Column* out) const {
    *out = Column(leaf.type);
    for (int which = 0; which < 2; ++which) {
      switch (leaf.type->id()) {
        case TypeId::kBoolean: out->Append<uint8_t>(static_cast<uint8_t>(which ? imax_ : imin_)); break;
        case TypeId::kInt8: out->Append<int8_t>(static_cast<int8_t>(which ? imax_ : imin_)); break;
        case TypeId::kInt16: out->Append<int16_t>(static_cast<int16_t>(which ? imax_ : imin_)); break;
        case TypeId::kInt32:
        case TypeId::kDate: out->Append<int32_t>(static_cast<int32_t>(which ? imax_ : imin_)); break;
        case TypeId::kInt64:
        case TypeId::kTimestamp:
        case TypeId::kTimestampNtz: out->Append<int64_t>(which ? imax_ : imin_); break;
        case TypeId::kFloat: out->Append<float>(static_cast<float>(which ? dmax_ : dmin_)); break;
        case TypeId::kDouble: out->Append<double>(which ? dmax_ : dmin_); break;
        case TypeId::kDecimal:
          out->Append<Int128>(physical_ == Physical::kDecimalBytes ? (which ? qmax_ : qmin_)
                                                                   : Int128(which ? imax_ : imin_));
          break;
        default: out->AppendString(which ? smax_ : smin_); break;
      }
    }
  }

  static std::string BigEndian(Int128 v, int width) {
    std::string out(width, '\0');
    for (int i = width - 1; i >= 0; --i) {
      out[i] = static_cast<char>(static_cast<uint8_t>(v & 0xff));
      v >>= 8;  // arithmetic shift keeps the sign
    }
    return out;
  }

 private:
  void TakeInt(int64_t v) {
    if (!has_ || v < imin_) imin_ = v;
    if (!has_ || v > imax_) imax_ = v;
    has_ = true;
  }

  Physical physical_;
  bool has_ = false;
  int64_t imin_ = 0, imax_ = 0;
  double dmin_ = 0, dmax_ = 0;
  Int128 qmin_ = 0, qmax_ = 0;
  std::string smin_, smax_;
};

using Dictionary = std::variant<std::monostate, ByteArrayDictionary, FixedWidthDictionary<int32_t>,
                                FixedWidthDictionary<int64_t>, FixedWidthDictionary<float>,
                                FixedWidthDictionary<double>>;

// Checks that non-nullable fields hold no null where their parent is present.
Status CheckNulls(const columnar::Field& field, const Column& c, const std::vector<uint8_t>* live) {
  auto is_live = [&](int64_t i) { return live == nullptr || (*live)[i]; };
  if (!field.nullable && c.null_count() > 0) {
    for (int64_t i = 0; i < c.size(); ++i) {
      if (c.IsNull(i) && is_live(i)) {
        return Status::InvalidArgument("column '" + field.name +
                                       "' is declared NOT NULL but row " + std::to_string(i) +
                                       " is null");
      }
    }
  }
  const auto& children = field.type->children();
  if (children.empty()) return Status::OK();
  if (field.type->id() == TypeId::kStruct) {
    std::vector<uint8_t> child_live(c.size());
    for (int64_t i = 0; i < c.size(); ++i) child_live[i] = is_live(i) && !c.IsNull(i);
    for (size_t k = 0; k < children.size(); ++k) {
      WEIR_RETURN_NOT_OK(CheckNulls(children[k], c.child(static_cast<int>(k)), &child_live));
    }
    return Status::OK();
  }
  for (size_t k = 0; k < children.size(); ++k) {  // list element / map key and value
    columnar::Field f = children[k];
    f.name = field.name + "." + f.name;
    WEIR_RETURN_NOT_OK(CheckNulls(f, c.child(static_cast<int>(k)), nullptr));
  }
  return Status::OK();
}

}  // namespace

// ---------------------------------------------------------------------------------------------

class ParquetWriter::ColumnWriter {
 public:
  ColumnWriter(const LeafDescriptor& leaf, const WriterOptions& options)
      : leaf_(leaf),
        options_(options),
        physical_(PhysicalOf(leaf)),
        chunk_stats_(physical_),
        file_stats_(physical_) {
    plain_.assign(kLevelsGap, '\0');
    ResetDictionary();
  }

  Status Add(const ShreddedLeaf& s, int64_t num_entries) {
    const bool has_def = leaf_.max_def > 0;
    const bool has_rep = leaf_.max_rep > 0;
    int64_t entry = 0;
    size_t value = 0;
    while (entry < num_entries) {
      int64_t end = std::min(num_entries, entry + kEntriesPerCheck);
      if (has_rep) {  // pages end at row boundaries
        while (end < num_entries && s.rep[end] != 0) ++end;
      }
      size_t values_end = value;
      if (has_def) {
        def_.insert(def_.end(), s.def.begin() + entry, s.def.begin() + end);
        for (int64_t i = entry; i < end; ++i) values_end += s.def[i] == leaf_.max_def;
        null_count_ += (end - entry) - static_cast<int64_t>(values_end - value);
      } else {
        values_end = value + (end - entry);
      }
      if (has_rep) rep_.insert(rep_.end(), s.rep.begin() + entry, s.rep.begin() + end);
      page_entries_ += end - entry;
      WEIR_RETURN_NOT_OK(AddValues(*s.values, s.value_rows.data() + value, values_end - value));
      value = values_end;
      entry = end;
      if (OpenPageBytes() >= options_.page_bytes) WEIR_RETURN_NOT_OK(FlushPage());
    }
    return Status::OK();
  }

  // Compressed pages (in-flight ones counted at their uncompressed size) plus the open page.
  int64_t BufferedBytes() const { return pages_bytes_ + OpenPageBytes(); }

  // Writes the chunk (dictionary page first) to `file`, which is at `chunk_offset`, and describes
  // it in `meta`. Each page goes to the file as it is (the file buffers): collecting the chunk in
  // one string first grew it by copying and faulted in fresh pages for every row group.
  Status FinishChunk(int64_t chunk_offset, fs::WritableFile* file, ColumnChunk* meta,
                     LeafStats* stats) {
    if (page_entries_ > 0) WEIR_RETURN_NOT_OK(FlushPage());
    ColumnMetaData md;
    md.type = leaf_.physical_type;
    md.path_in_schema = leaf_.path;
    md.codec = ToParquetCodec(options_.codec);
    md.num_values = chunk_entries_;
    int64_t uncompressed = 0;
    int64_t written = 0;
    if (used_dictionary_) {
      std::string plain;
      std::visit(
          [&](auto& d) {
            using D = std::decay_t<decltype(d)>;
            if constexpr (std::is_same_v<D, ByteArrayDictionary>) {
              if (physical_ == Physical::kDecimalBytes) {
                d.WritePlainFixedLen(&plain);
              } else {
                d.WritePlain(&plain);
              }
            } else if constexpr (!std::is_same_v<D, std::monostate>) {
              d.WritePlain(&plain);
            }
          },
          dictionary_);
      PageHeader header;
      header.type = PageType::kDictionaryPage;
      DictionaryPageHeader dict;
      dict.num_values = static_cast<int32_t>(DictionarySize());
      dict.encoding = Encoding::kPlain;
      header.dictionary_page_header = dict;
      WEIR_RETURN_NOT_OK(AppendPage(header, plain, file, &written, &uncompressed));
      md.dictionary_page_offset = chunk_offset;
      md.encoding_stats.push_back({PageType::kDictionaryPage, Encoding::kPlain, 1});
      if (dict_pages_ > 0) {
        md.encoding_stats.push_back({PageType::kDataPage, Encoding::kRleDictionary, dict_pages_});
      }
    }
    md.data_page_offset = chunk_offset + written;
    if (plain_pages_ > 0) md.encoding_stats.push_back({PageType::kDataPage, Encoding::kPlain, plain_pages_});
    for (size_t i = 0; i < pages_.size(); ++i) {
      PendingPage& page = pages_[i];
      WEIR_RETURN_NOT_OK(compress::BackgroundCompressor::Shared().Wait(*page.job));
      WEIR_RETURN_NOT_OK(AppendCompressedPage(page, file, &written, &uncompressed));
      if (i >= pages_done_) Recycle(std::move(page.job->input));
    }
    md.total_compressed_size = written;
    md.total_uncompressed_size = uncompressed;
    if (used_dictionary_ || plain_pages_ > 0) md.encodings.push_back(Encoding::kPlain);
    if (leaf_.max_def > 0 || leaf_.max_rep > 0) md.encodings.push_back(Encoding::kRle);
    if (used_dictionary_) md.encodings.push_back(Encoding::kRleDictionary);
    DictionaryMinMax();
    Statistics st;
    st.null_count = null_count_;
    chunk_stats_.ToParquet(leaf_, &st);
    md.statistics = st;
    meta->file_offset = chunk_offset + md.total_compressed_size;
    meta->meta_data = std::move(md);

    file_stats_.Merge(chunk_stats_);
    stats->null_count += null_count_;
    stats->has_min_max = file_stats_.has();
    if (file_stats_.has()) file_stats_.ToColumn(leaf_, &stats->min_max);

    // Reset for the next row group.
    pages_.clear();
    pages_done_ = 0;
    pages_bytes_ = 0;
    chunk_entries_ = 0;
    null_count_ = 0;
    dict_pages_ = plain_pages_ = 0;
    used_dictionary_ = false;
    chunk_stats_.Reset();
    ResetDictionary();
    return Status::OK();
  }

 private:
  static CompressionCodec ToParquetCodec(compress::Codec c) {
    switch (c) {
      case compress::Codec::kUncompressed: return CompressionCodec::kUncompressed;
      case compress::Codec::kSnappy: return CompressionCodec::kSnappy;
      case compress::Codec::kGzip: return CompressionCodec::kGzip;
      case compress::Codec::kLz4Hadoop: return CompressionCodec::kLz4;
      case compress::Codec::kZstd: return CompressionCodec::kZstd;
      case compress::Codec::kLz4Raw: return CompressionCodec::kLz4Raw;
      case compress::Codec::kBrotli: return CompressionCodec::kBrotli;
    }
    return CompressionCodec::kUncompressed;
  }

  void ResetDictionary() {
    dictionary_ = std::monostate{};
    dict_values_ = 0;
    dict_values_plain_bytes_ = 0;
    dict_checked_ = false;
    dict_active_ = options_.enable_dictionary && physical_ != Physical::kBool && !mostly_distinct_;
    if (!dict_active_) return;
    switch (physical_) {
      case Physical::kInt32: dictionary_.emplace<FixedWidthDictionary<int32_t>>(); break;
      case Physical::kInt64: dictionary_.emplace<FixedWidthDictionary<int64_t>>(); break;
      case Physical::kFloat: dictionary_.emplace<FixedWidthDictionary<float>>(); break;
      case Physical::kDouble: dictionary_.emplace<FixedWidthDictionary<double>>(); break;
      default: dictionary_.emplace<ByteArrayDictionary>(); break;
    }
  }

  int64_t DictionarySize() const {
    return std::visit(
        [](const auto& d) -> int64_t {
          if constexpr (std::is_same_v<std::decay_t<decltype(d)>, std::monostate>) {
            return 0;
          } else {
            return d.size();
          }
        },
        dictionary_);
  }
  int64_t DictionaryPlainSize() const {
    return std::visit(
        [](const auto& d) -> int64_t {
          if constexpr (std::is_same_v<std::decay_t<decltype(d)>, std::monostate>) {
            return 0;
          } else {
            return d.plain_size();
          }
        },
        dictionary_);
  }

  int64_t OpenPageBytes() const {
    int64_t levels = static_cast<int64_t>(def_.size() + rep_.size()) / 4;
    return static_cast<int64_t>(plain_.size() - kLevelsGap + bools_.size() / 8 +
                                indices_.size() * 2) + levels;
  }

  // Converts rows of the leaf's flat column to physical values, updates statistics, and adds
  // them to the open page (dictionary indices or PLAIN bytes).
  Status AddValues(const Column& c, const int64_t* rows, size_t n) {
    if (n == 0) return Status::OK();
    switch (physical_) {
      case Physical::kBool: {
        // Bit-packed when the page is flushed: packing each piece on its own would pad it to a
        // whole byte in the middle of the page.
        const size_t at = bools_.size();
        bools_.resize(at + n);
        for (size_t i = 0; i < n; ++i) {
          bools_[at + i] = c.Value<uint8_t>(rows[i]) ? 1 : 0;
          chunk_stats_.UpdateInt(bools_[at + i]);
        }
        return Status::OK();
      }
      case Physical::kInt32: {
        i32_.resize(n);
        switch (c.type_id()) {
          case TypeId::kInt8: Gather<int8_t>(c, rows, n, i32_.data()); break;
          case TypeId::kInt16: Gather<int16_t>(c, rows, n, i32_.data()); break;
          case TypeId::kDecimal: Gather<Int128>(c, rows, n, i32_.data()); break;
          default: Gather<int32_t>(c, rows, n, i32_.data()); break;
        }
        for (int32_t v : i32_) chunk_stats_.UpdateInt(v);
        return Emit(i32_.data(), n);
      }
      case Physical::kInt64: {
        i64_.resize(n);
        if (c.type_id() == TypeId::kDecimal) {
          Gather<Int128>(c, rows, n, i64_.data());
        } else {
          Gather<int64_t>(c, rows, n, i64_.data());
        }
        chunk_stats_.UpdateInts(i64_.data(), static_cast<int64_t>(n));
        return Emit(i64_.data(), n);
      }
      case Physical::kFloat: {
        f32_.resize(n);
        Gather<float>(c, rows, n, f32_.data());
        for (float v : f32_) chunk_stats_.UpdateDouble(v);
        return Emit(f32_.data(), n);
      }
      case Physical::kDouble: {
        f64_.resize(n);
        Gather<double>(c, rows, n, f64_.data());
        for (double v : f64_) chunk_stats_.UpdateDouble(v);
        return Emit(f64_.data(), n);
      }
      case Physical::kBytes: {
        views_.resize(n);
        const std::string_view* strings = c.strings();
        for (size_t i = 0; i < n; ++i) views_[i] = strings[rows[i]];
        // Values that go into the dictionary get their min and max from its distinct entries when
        // the chunk is finished (DictionaryMinMax); PLAIN values are compared as they are copied,
        // while their bytes are in the cache (a separate pass over a chunk's payloads read them
        // from memory twice: ~5% of bronze's CPU).
        if (dict_active_) return EmitBytes(n, /*fixed_width=*/0);
        EmitPlainBytesWithMinMax(n);
        return Status::OK();
      }
      case Physical::kDecimalBytes: {
        views_.resize(n);
        decimal_bytes_.clear();
        decimal_bytes_.reserve(n * leaf_.type_length);
        for (size_t i = 0; i < n; ++i) {
          Int128 v = c.Value<Int128>(rows[i]);
          chunk_stats_.UpdateDecimal(v);
          decimal_bytes_ += MinMax::BigEndian(v, leaf_.type_length);
        }
        for (size_t i = 0; i < n; ++i) {
          views_[i] = std::string_view(decimal_bytes_).substr(i * leaf_.type_length, leaf_.type_length);
        }
        return EmitBytes(n, leaf_.type_length);
      }
    }
    return Status::Internal("unknown physical type");
  }

  template <typename From, typename To>
  static void Gather(const Column& c, const int64_t* rows, size_t n, To* out) {
    const From* values = c.values<From>();
    for (size_t i = 0; i < n; ++i) out[i] = static_cast<To>(values[rows[i]]);
  }

  template <typename T>
  Status Emit(const T* values, size_t n) {
    if (dict_active_) {
      auto& dict = std::get<FixedWidthDictionary<T>>(dictionary_);
      size_t at = indices_.size();
      indices_.resize(at + n);
      dict.Insert(values, static_cast<int64_t>(n), indices_.data() + at);
      dict_values_ += static_cast<int64_t>(n);
      dict_values_plain_bytes_ += static_cast<int64_t>(n * sizeof(T));
      if (dict.plain_size() > options_.dictionary_bytes_limit) return FallBackToPlain();
      return CheckDictionaryPaysOff(dict.size(), dict.plain_size());
    }
    EncodePlain(values, static_cast<int64_t>(n), &plain_);
    return Status::OK();
  }

  Status EmitBytes(size_t n, int fixed_width) {
    if (dict_active_) {
      auto& dict = std::get<ByteArrayDictionary>(dictionary_);
      size_t at = indices_.size();
      indices_.resize(at + n);
      dict.Insert(views_.data(), static_cast<int64_t>(n), indices_.data() + at);
      dict_values_ += static_cast<int64_t>(n);
      if (fixed_width > 0) {
        dict_values_plain_bytes_ += static_cast<int64_t>(n) * fixed_width;
      } else {
        int64_t bytes = 4 * static_cast<int64_t>(n);
        for (size_t i = 0; i < n; ++i) bytes += static_cast<int64_t>(views_[i].size());
        dict_values_plain_bytes_ += bytes;
      }
      if (dict.plain_size() > options_.dictionary_bytes_limit) return FallBackToPlain();
      return CheckDictionaryPaysOff(dict.size(), dict.plain_size());
    }
    if (fixed_width > 0) {
      EncodePlainFixedLenByteArray(views_.data(), static_cast<int64_t>(n), fixed_width, &plain_);
    } else {
      EncodePlainByteArray(views_.data(), static_cast<int64_t>(n), &plain_);
    }
    return Status::OK();
  }

  // PLAIN BYTE_ARRAY values of views_[0, n) appended to the open page, with their min and max
  // taken into chunk_stats_.
  void EmitPlainBytesWithMinMax(size_t n) {
    size_t total = 0;
    for (size_t i = 0; i < n; ++i) total += 4 + views_[i].size();
    plain_.reserve(plain_.size() + total);  // appended, not resized: see EncodePlainByteArray
    std::string_view min = views_[0], max = min;
    for (size_t i = 0; i < n; ++i) {
      const std::string_view v = views_[i];
      if (CompareBytes(v, min) < 0) {
        min = v;
      } else if (CompareBytes(v, max) > 0) {
        max = v;
      }
      const auto length = static_cast<uint32_t>(v.size());
      char length_bytes[4];
      std::memcpy(length_bytes, &length, 4);
      plain_.append(length_bytes, 4);
      plain_.append(v);
    }
    chunk_stats_.UpdateBytes(min);
    chunk_stats_.UpdateBytes(max);
  }

  // The min and max of the byte-array dictionary's entries into chunk_stats_: every value that
  // went through the dictionary is one of them.
  void DictionaryMinMax() {
    const auto* dict = std::get_if<ByteArrayDictionary>(&dictionary_);
    if (physical_ != Physical::kBytes || dict == nullptr || dict->size() == 0) return;
    std::string_view min = dict->value(0), max = min;
    for (int64_t i = 1; i < dict->size(); ++i) {
      const std::string_view v = dict->value(static_cast<uint32_t>(i));
      if (CompareBytes(v, min) < 0) {
        min = v;
      } else if (CompareBytes(v, max) > 0) {
        max = v;
      }
    }
    chunk_stats_.UpdateBytes(min);
    chunk_stats_.UpdateBytes(max);
  }

  // Once per chunk, after kDictionaryProbeValues values: when the dictionary plus the indices
  // take as many bytes as the values would in PLAIN (mostly distinct values: offsets, ids, raw
  // payloads), the chunk continues in PLAIN rather than filling a dictionary up to its limit, and
  // the file's later chunks of this column start in PLAIN without a probe (as parquet-mr stays
  // fallen back): probing a raw payload column again in every row group hashed and copied 8192
  // payloads and wrote a dictionary page that no reader needed.
  Status CheckDictionaryPaysOff(int64_t dict_size, int64_t dict_plain_size) {
    if (dict_checked_ || dict_values_ < kDictionaryProbeValues) return Status::OK();
    dict_checked_ = true;
    const int width = BitWidth(static_cast<uint64_t>(std::max<int64_t>(dict_size - 1, 0)));
    const int64_t encoded = dict_plain_size + (dict_values_ * width + 7) / 8;
    if (encoded >= dict_values_plain_bytes_) {
      mostly_distinct_ = true;
      return FallBackToPlain();
    }
    return Status::OK();
  }

  // The dictionary grew past its limit: close the open page with dictionary indices (the
  // dictionary so far is written with the chunk) and continue with PLAIN pages.
  Status FallBackToPlain() {
    WEIR_RETURN_NOT_OK(FlushPage());
    dict_active_ = false;
    return Status::OK();
  }

  // A data page whose body is compressed in the background (compress::BackgroundCompressor).
  struct PendingPage {
    PageHeader header;  // without its sizes
    size_t body_size;   // uncompressed
    std::shared_ptr<compress::BackgroundCompressor::Job> job;
  };

  // Compresses `body` here and appends its header and the compressed bytes (the dictionary page).
  Status AppendPage(const PageHeader& base, std::string_view body, fs::WritableFile* file,
                    int64_t* written, int64_t* uncompressed_total) {
    compressed_.clear();
    if (options_.codec == compress::Codec::kUncompressed) {
      compressed_.assign(body);
    } else {
      WEIR_RETURN_NOT_OK(
          compress::Compress(options_.codec, options_.compression_level, body, &compressed_));
    }
    return AppendWithSizes(base, body.size(), compressed_, file, written, uncompressed_total);
  }

  // Appends a finished background page: its header with the sizes, then its compressed bytes.
  Status AppendCompressedPage(const PendingPage& page, fs::WritableFile* file, int64_t* written,
                              int64_t* uncompressed_total) {
    return AppendWithSizes(page.header, page.body_size, page.job->output, file, written,
                           uncompressed_total);
  }

  Status AppendWithSizes(const PageHeader& base, size_t body_size, std::string_view compressed,
                         fs::WritableFile* file, int64_t* written, int64_t* uncompressed_total) {
    PageHeader header = base;
    header.uncompressed_page_size = static_cast<int32_t>(body_size);
    header.compressed_page_size = static_cast<int32_t>(compressed.size());
    header_.clear();
    Serialize(header, &header_);
    WEIR_RETURN_NOT_OK(file->Append(header_));
    WEIR_RETURN_NOT_OK(file->Append(compressed));
    *written += static_cast<int64_t>(header_.size() + compressed.size());
    *uncompressed_total += static_cast<int64_t>(header_.size() + body_size);
    return Status::OK();
  }

  // Hands the page held in `*buffer` from `begin` on to the background compressor (or, without
  // a codec, takes it as is); `*buffer` becomes an empty spare buffer. Waits for the column's
  // oldest page once kPagesInFlight are in flight.
  Status SubmitPage(const PageHeader& header, std::string* buffer, size_t begin) {
    auto job = std::make_shared<compress::BackgroundCompressor::Job>();
    job->codec = options_.codec;
    job->level = options_.compression_level;
    job->input = std::move(*buffer);
    job->begin = begin;
    *buffer = TakeSpare();
    const auto body_size = static_cast<int64_t>(job->body().size());
    if (options_.codec == compress::Codec::kUncompressed) {
      job->output.assign(job->body());
      job->done = true;  // never submitted: Wait() returns at once
    } else {
      compress::BackgroundCompressor::Shared().Submit(job);
    }
    pages_.push_back(PendingPage{header, static_cast<size_t>(body_size), std::move(job)});
    pages_bytes_ += body_size;
    while (pages_.size() - pages_done_ > kPagesInFlight) {
      const PendingPage& oldest = pages_[pages_done_++];
      WEIR_RETURN_NOT_OK(compress::BackgroundCompressor::Shared().Wait(*oldest.job));
      pages_bytes_ += static_cast<int64_t>(oldest.job->output.size()) -
                      static_cast<int64_t>(oldest.body_size);
      Recycle(std::move(oldest.job->input));
    }
    return Status::OK();
  }

  std::string TakeSpare() {
    if (spare_.empty()) return std::string();
    std::string s = std::move(spare_.back());
    spare_.pop_back();
    return s;
  }
  void Recycle(std::string buffer) {
    if (spare_.size() >= kPagesInFlight + 1) return;
    buffer.clear();
    spare_.push_back(std::move(buffer));
  }

  Status FlushPage() {
    if (page_entries_ == 0) return Status::OK();
    body_.clear();
    if (leaf_.max_rep > 0) EncodeLevels(rep_, leaf_.max_rep);
    if (leaf_.max_def > 0) EncodeLevels(def_, leaf_.max_def);
    const bool dictionary_page = dict_active_ || !indices_.empty();
    if (dictionary_page) {
      int width = std::max(1, BitWidth(static_cast<uint64_t>(std::max<int64_t>(DictionarySize() - 1, 0))));
      body_.push_back(static_cast<char>(width));
      RleBitPackedEncoder encoder(width);
      encoder.Put(indices_.data(), static_cast<int64_t>(indices_.size()));
      encoder.Flush(&body_);
    }
    if (!bools_.empty()) {
      EncodePlainBoolean(bools_.data(), static_cast<int64_t>(bools_.size()), &plain_);
      bools_.clear();
    }
    PageHeader header;
    header.type = PageType::kDataPage;
    DataPageHeader dp;
    dp.num_values = static_cast<int32_t>(page_entries_);
    dp.encoding = dictionary_page ? Encoding::kRleDictionary : Encoding::kPlain;
    header.data_page_header = dp;
    if (dictionary_page) {
      WEIR_RETURN_NOT_OK(SubmitPage(header, &body_, 0));
    } else {
      // Levels then PLAIN values: the levels go into the gap reserved in front of the values
      // when they fit (no copy of the values), else both are copied into body_.
      const size_t levels = body_.size();
      const size_t values = plain_.size() - kLevelsGap;
      if (levels <= kLevelsGap) {
        if (levels > 0) std::memcpy(plain_.data() + (kLevelsGap - levels), body_.data(), levels);
        WEIR_RETURN_NOT_OK(SubmitPage(header, &plain_, kLevelsGap - levels));
      } else {
        body_.append(plain_, kLevelsGap, values);
        WEIR_RETURN_NOT_OK(SubmitPage(header, &body_, 0));
      }
    }
    if (dictionary_page) {
      ++dict_pages_;
      used_dictionary_ = true;
    } else {
      ++plain_pages_;
    }
    chunk_entries_ += page_entries_;
    page_entries_ = 0;
    def_.clear();
    rep_.clear();
    plain_.resize(kLevelsGap);
    indices_.clear();
    return Status::OK();
  }

  void EncodeLevels(const std::vector<int16_t>& levels, int16_t max_level) {
    RleBitPackedEncoder encoder(BitWidth(static_cast<uint64_t>(max_level)));
    encoder.Put(reinterpret_cast<const uint16_t*>(levels.data()), static_cast<int64_t>(levels.size()));
    encoder.FlushWithLengthPrefix(&body_);
  }

  const LeafDescriptor& leaf_;
  const WriterOptions& options_;
  const Physical physical_;
  MinMax chunk_stats_;
  MinMax file_stats_;
  Dictionary dictionary_;
  bool dict_active_ = false;
  bool used_dictionary_ = false;
  bool dict_checked_ = false;             // CheckDictionaryPaysOff ran for this chunk
  bool mostly_distinct_ = false;          // a chunk of this file failed that probe
  int64_t dict_values_ = 0;               // values sent through the dictionary in this chunk
  int64_t dict_values_plain_bytes_ = 0;   // their size in PLAIN encoding
  // Open page.
  std::vector<int16_t> def_, rep_;
  std::vector<uint32_t> indices_;
  // PLAIN values of the open page, after kLevelsGap bytes kept free for the page's levels.
  static constexpr size_t kLevelsGap = 64;
  std::string plain_;
  int64_t page_entries_ = 0;
  // Chunk: its data pages in order; the first pages_done_ are compressed. pages_bytes_ counts
  // those at their compressed size and the rest at their uncompressed size.
  std::vector<PendingPage> pages_;
  size_t pages_done_ = 0;
  int64_t pages_bytes_ = 0;
  std::vector<std::string> spare_;  // page buffers to reuse
  int64_t chunk_entries_ = 0;
  int64_t null_count_ = 0;
  int32_t dict_pages_ = 0, plain_pages_ = 0;
  std::vector<uint8_t> bools_;  // the open page's BOOLEAN values, one byte each
  // Scratch buffers reused across calls.
  std::vector<int32_t> i32_;
  std::vector<int64_t> i64_;
  std::vector<float> f32_;
  std::vector<double> f64_;
  std::vector<std::string_view> views_;
  std::string decimal_bytes_;
  std::string body_;
  std::string compressed_;
  std::string header_;  // a page header being written
};

// ---------------------------------------------------------------------------------------------

Result<std::unique_ptr<ParquetWriter>> ParquetWriter::Open(std::unique_ptr<fs::WritableFile> file,
                                                           columnar::Schema schema,
                                                           WriterOptions options) {
  if (options.codec == compress::Codec::kBrotli) {
    return Status::NotImplemented("Parquet writer: brotli compression is not supported");
  }
  std::unique_ptr<ParquetWriter> w(new ParquetWriter());
  w->file_ = std::move(file);
  w->options_ = std::move(options);
  w->metadata_.schema = SchemaToParquet(schema);
  WEIR_ASSIGN_OR_RETURN(w->file_schema_, SchemaFromParquet(w->metadata_.schema));
  // Keep the caller's nullability and metadata (the Parquet round trip keeps types and names).
  w->file_schema_.schema = std::move(schema);
  for (const LeafDescriptor& leaf : w->file_schema_.leaves) {
    w->columns_.push_back(std::make_unique<ColumnWriter>(leaf, w->options_));
    LeafStats stats;
    stats.min_max = Column(leaf.type);
    w->leaf_stats_.push_back(std::move(stats));
  }
  static constexpr char kMagic[] = "PAR1";
  WEIR_RETURN_NOT_OK(w->file_->Append(std::string_view(kMagic, 4)));
  w->offset_ = 4;
  return w;
}

ParquetWriter::~ParquetWriter() = default;

int64_t ParquetWriter::EstimatedSize() const {
  int64_t total = offset_;
  for (const auto& c : columns_) total += c->BufferedBytes();
  return total;
}

Status ParquetWriter::Write(const columnar::Batch& batch) {
  if (closed_) return Status::InvalidArgument("Parquet writer: Write after Close");
  const auto& fields = file_schema_.schema.fields;
  if (batch.columns.size() != fields.size()) {
    return Status::InvalidArgument("Parquet writer: the batch has " +
                                   std::to_string(batch.columns.size()) + " columns, the file " +
                                   std::to_string(fields.size()));
  }
  for (size_t i = 0; i < fields.size(); ++i) {
    // Nested nullability may differ: the file's decides the levels, and CheckNulls refuses a
    // null where the file's field is required.
    if (!batch.columns[i].type()->EqualsIgnoringNullability(*fields[i].type)) {
      return Status::InvalidArgument("Parquet writer: column '" + fields[i].name + "' is " +
                                     batch.columns[i].type()->ToDdl() + ", the file expects " +
                                     fields[i].type->ToDdl());
    }
    if (batch.columns[i].size() != batch.num_rows()) {
      return Status::InvalidArgument("Parquet writer: columns of different lengths");
    }
    WEIR_RETURN_NOT_OK(CheckNulls(fields[i], batch.columns[i], nullptr));
  }
  std::vector<ShreddedLeaf> shredded(file_schema_.leaves.size());
  const int64_t rows = batch.num_rows();
  const int64_t group_rows = std::max<int64_t>(1, options_.row_group_rows);
  for (int64_t begin = 0, end = 0; begin < rows; begin = end) {
    end = std::min({rows, begin + kRowsPerSlice, begin + (group_rows - row_group_rows_)});
    for (auto& s : shredded) {
      s.def.clear();
      s.rep.clear();
      s.value_rows.clear();
    }
    for (size_t f = 0; f < fields.size(); ++f) {
      ShredColumn(file_schema_.fields[f], batch.columns[f], begin, end, &shredded);
    }
    for (size_t l = 0; l < columns_.size(); ++l) {
      const LeafDescriptor& leaf = file_schema_.leaves[l];
      int64_t entries = leaf.max_def > 0 || leaf.max_rep > 0
                            ? static_cast<int64_t>(shredded[l].def.size())
                            : end - begin;
      WEIR_RETURN_NOT_OK(columns_[l]->Add(shredded[l], entries));
    }
    row_group_rows_ += end - begin;
    num_rows_ += end - begin;
    if (row_group_rows_ >= group_rows || EstimatedSize() - offset_ >= options_.row_group_bytes) {
      WEIR_RETURN_NOT_OK(FlushRowGroup());
    }
  }
  return Status::OK();
}

Status ParquetWriter::FlushRowGroup() {
  if (row_group_rows_ == 0) return Status::OK();
  RowGroup rg;
  rg.num_rows = row_group_rows_;
  rg.file_offset = offset_;
  rg.ordinal = static_cast<int16_t>(metadata_.row_groups.size());
  int64_t start = offset_;
  for (size_t l = 0; l < columns_.size(); ++l) {
    ColumnChunk cc;
    WEIR_RETURN_NOT_OK(columns_[l]->FinishChunk(offset_, file_.get(), &cc, &leaf_stats_[l]));
    offset_ += cc.meta_data->total_compressed_size;
    rg.total_byte_size += cc.meta_data->total_uncompressed_size;
    rg.columns.push_back(std::move(cc));
  }
  rg.total_compressed_size = offset_ - start;
  metadata_.row_groups.push_back(std::move(rg));
  row_group_rows_ = 0;
  return Status::OK();
}

Status ParquetWriter::Close() {
  if (closed_) return Status::OK();
  closed_ = true;
  WEIR_RETURN_NOT_OK(FlushRowGroup());
  metadata_.version = 1;
  metadata_.num_rows = num_rows_;
  metadata_.created_by = "weir version " WEIR_VERSION;
  metadata_.key_value_metadata = options_.key_value_metadata;
  metadata_.column_orders.assign(file_schema_.leaves.size(), ColumnOrder::kTypeDefinedOrder);
  std::string footer;
  Serialize(metadata_, &footer);
  uint32_t length = static_cast<uint32_t>(footer.size());
  footer.append(reinterpret_cast<const char*>(&length), 4);
  footer.append("PAR1");
  WEIR_RETURN_NOT_OK(file_->Append(footer));
  offset_ += static_cast<int64_t>(footer.size());
  if (options_.sync_on_close) WEIR_RETURN_NOT_OK(file_->Sync());
  WEIR_RETURN_NOT_OK(file_->Close());
  file_size_ = offset_;
  return Status::OK();
}

Status WriteParquetFile(fs::FileSystem* fs, const std::string& path, const columnar::Batch& batch,
                        WriterOptions options) {
  WEIR_ASSIGN_OR_RETURN(auto file, fs->OpenForWrite(path));
  WEIR_ASSIGN_OR_RETURN(auto writer, ParquetWriter::Open(std::move(file), batch.schema, std::move(options)));
  WEIR_RETURN_NOT_OK(writer->Write(batch));
  return writer->Close();
}

}  // namespace weir::parquet
