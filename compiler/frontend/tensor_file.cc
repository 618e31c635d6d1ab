#include "compiler/frontend/tensor_file.h"

#include <fstream>
#include <map>
#include <optional>

#include "common/file_read.h"
#include "common/strings.h"
#include "compiler/frontend/onnx_tensor.h"
#include "onnx/onnx_pb.h"

namespace tunefarm::frontend {
namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// NumPy's type strings for the dtypes a model can have. NumPy has no bfloat16: an array of
// ml_dtypes.bfloat16 is saved as a 2-byte void ('<V2' or '|V2': the raw bits, little-endian),
// so a 2-byte void means bfloat16 here, and Python reads our files back with
// np.load(f).view(ml_dtypes.bfloat16).
const std::map<std::string, std::string>& NpyDescrs() {
  static const auto* m = new std::map<std::string, std::string>{
      {"bfloat16", "|V2"}, {"float16", "<f2"}, {"float32", "<f4"}, {"float64", "<f8"}, {"int8", "|i1"},   {"int16", "<i2"},
      {"int32", "<i4"},   {"int64", "<i8"},   {"uint8", "|u1"},   {"uint16", "<u2"}, {"uint32", "<u4"},
      {"uint64", "<u8"},  {"bool", "|b1"}};
  return *m;
}

int64_t ElementBytes(const std::string& dtype) {
  std::optional<te::DType> t = te::ParseDType(dtype);
  return t ? te::DTypeBytes(*t) : 1;
}

// The value of `key` in a .npy header dict, e.g. 'descr': '<f4' -> "<f4" (quotes removed) and
// 'shape': (1, 3) -> "1, 3".
std::string NpyField(const std::string& header, const std::string& key) {
  size_t k = header.find(StrCat("'", key, "'"));
  if (k == std::string::npos) return "";
  size_t colon = header.find(':', k);
  if (colon == std::string::npos) return "";
  size_t start = header.find_first_not_of(" ", colon + 1);
  if (start == std::string::npos) return "";
  char open = header[start];
  char close = open == '(' ? ')' : open == '\'' ? '\'' : ',';
  size_t end = header.find(close, start + 1);
  if (end == std::string::npos) return "";
  return open == '(' || open == '\'' ? header.substr(start + 1, end - start - 1) : header.substr(start, end - start);
}

absl::StatusOr<TensorFile> ParseNpy(const std::string& path, const std::string& data) {
  auto bad = [&](const std::string& why) { return absl::InvalidArgumentError(StrCat(path, ": not a valid .npy file: ", why)); };
  if (data.size() < 10 || data.compare(0, 6, "\x93NUMPY") != 0) return bad("no NUMPY magic");
  int major = static_cast<uint8_t>(data[6]);
  size_t header_len, header_start;
  if (major == 1) {
    header_len = static_cast<uint8_t>(data[8]) | (static_cast<uint8_t>(data[9]) << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (data.size() < 12) return bad("truncated header");
    header_len = 0;
    for (int i = 3; i >= 0; --i) header_len = (header_len << 8) | static_cast<uint8_t>(data[8 + i]);
    header_start = 12;
  } else {
    return bad(StrCat("format version ", major));
  }
  if (header_start + header_len > data.size()) return bad("truncated header");
  std::string header = data.substr(header_start, header_len);
  TensorFile t;
  std::string descr = NpyField(header, "descr");
  for (const auto& [dtype, d] : NpyDescrs()) {
    if (d == descr || (d[0] == '|' && descr.size() == 3 && descr.substr(1) == d.substr(1))) t.dtype = dtype;
  }
  if (t.dtype.empty()) return bad(StrCat("unsupported dtype '", descr, "'"));
  if (NpyField(header, "fortran_order") != "False") return bad("Fortran order is not supported");
  std::string dims = NpyField(header, "shape");
  for (std::string_view d : StrSplit(dims, ',')) {
    std::string s;
    for (char c : d) {
      if (c != ' ') s += c;
    }
    if (s.empty()) continue;
    int64_t v = 0;
    if (!ParseInt64(s, &v) || v < 0) return bad(StrCat("bad shape '(", dims, ")'"));
    t.shape.push_back(v);
  }
  t.has_shape = true;
  // A hostile header's product can overflow (and wrap to the file's size): checked.
  int64_t bytes = ElementBytes(t.dtype);
  for (int64_t d : t.shape)
    if (__builtin_mul_overflow(bytes, d, &bytes)) return bad(StrCat("shape (", dims, ") is too large"));
  t.bytes = data.substr(header_start + header_len);
  if (static_cast<int64_t>(t.bytes.size()) != bytes) {
    return bad(StrCat("holds ", t.bytes.size(), " data bytes, its header says ", bytes));
  }
  return t;
}

absl::StatusOr<TensorFile> ParsePb(const std::string& path, const std::string& data) {
  onnx::TensorProto proto;
  if (!proto.ParseFromString(data)) return absl::InvalidArgumentError(StrCat(path, ": not an ONNX TensorProto"));
  auto host = frontend::HostTensorFromOnnx(proto);
  if (!host.ok()) return absl::InvalidArgumentError(StrCat(path, ": ", std::string(host.status().message())));
  TensorFile t;
  t.dtype = std::string(te::DTypeName(host->dtype));
  t.shape = host->shape;
  t.has_shape = true;
  t.bytes.assign(reinterpret_cast<const char*>(host->bytes.data()), host->bytes.size());
  return t;
}

std::string NpyBytes(const TensorFile& t) {
  std::vector<std::string> dims;
  for (int64_t d : t.shape) dims.push_back(std::to_string(d));
  std::string shape = StrJoin(dims, ", ");
  if (dims.size() == 1) shape += ",";  // NumPy's one-element tuple: (4,)
  std::string header = StrCat("{'descr': '", NpyDescrs().at(t.dtype), "', 'fortran_order': False, 'shape': (", shape, "), }");
  // Total header (magic + version + length + dict + '\n') is a multiple of 64.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  std::string out("\x93NUMPY\x01\x00", 8);
  out.push_back(static_cast<char>(header.size() & 0xff));
  out.push_back(static_cast<char>(header.size() >> 8));
  return out + header + t.bytes;
}

}  // namespace

absl::StatusOr<TensorFile> ReadTensorFile(const std::string& path, uint64_t max_data_bytes) {
  auto data = ReadRegularFile(path, max_data_bytes + kMaxTensorHeaderBytes, "tensor file");
  if (!data.ok()) return data.status();
  if (EndsWith(path, ".npy")) return ParseNpy(path, *data);
  if (EndsWith(path, ".pb")) return ParsePb(path, *data);
  TensorFile t;
  t.bytes = std::move(*data);
  return t;
}

absl::Status WriteTensorFile(const std::string& path, const TensorFile& t) {
  std::string bytes;
  if (EndsWith(path, ".npy")) {
    if (!NpyDescrs().count(t.dtype)) return absl::InvalidArgumentError(StrCat(path, ": no .npy type for ", t.dtype));
    bytes = NpyBytes(t);
  } else if (EndsWith(path, ".pb")) {
    onnx::TensorProto proto;
    std::optional<te::DType> dtype = te::ParseDType(t.dtype);
    std::optional<onnx::TensorProto::DataType> code = dtype ? OnnxFromDType(*dtype) : std::nullopt;
    if (!code) return absl::InvalidArgumentError(StrCat(path, ": no ONNX type for ", t.dtype));
    proto.set_data_type(*code);
    for (int64_t d : t.shape) proto.add_dims(d);
    proto.set_raw_data(t.bytes);
    bytes = proto.SerializeAsString();
  } else {
    bytes = t.bytes;
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) return absl::InternalError(StrCat(path, ": cannot write"));
  return absl::OkStatus();
}

}  // namespace tunefarm::frontend
