// The dtypes added for ONNX's full type list: unsigned 16/32/64-bit integers (computed like the
// others) and the storage floats float16/bfloat16 (Cast converts them, ops that only move
// elements carry them, every other op computes in float32 and stores 16 bits).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "compiler/frontend/onnx_tensor.h"
#include "compiler/graph/const_eval.h"
#include "compiler/graph/op_compute.h"
#include "onnx/onnx_pb.h"

namespace tunefarm::graph {
namespace {

using te::DType;

TEST(StorageDTypes, NamesRoundTrip) {
  for (DType t : {DType::kUInt16, DType::kUInt32, DType::kUInt64, DType::kFloat16, DType::kBFloat16}) {
    auto parsed = te::ParseDType(te::DTypeName(t));
    ASSERT_TRUE(parsed.has_value()) << te::DTypeName(t);
    EXPECT_EQ(*parsed, t);
  }
  EXPECT_EQ(te::DTypeBytes(DType::kFloat16), 2);
  EXPECT_EQ(te::DTypeBytes(DType::kUInt64), 8);
  EXPECT_FALSE(te::IsSigned(DType::kUInt32));
  EXPECT_FALSE(te::IsFloat(DType::kBFloat16));
  EXPECT_FALSE(te::IsInt(DType::kFloat16));
}

TEST(StorageDTypes, HostTensorConvertsEveryNewDType) {
  auto t = HostTensor::Zeros(DType::kUInt64, {2});
  ASSERT_TRUE(t.ok());
  t->SetInt(0, -1);  // the bit pattern of 2^64 - 1
  EXPECT_EQ(t->GetDouble(0), 18446744073709551615.0);
  t->SetDouble(1, 1e30);  // saturates
  EXPECT_EQ(t->GetInt(1), -1);

  auto u = HostTensor::Zeros(DType::kUInt32, {1});
  u->SetDouble(0, 4294967295.0);
  EXPECT_EQ(u->GetInt(0), 4294967295);

  auto h = HostTensor::Zeros(DType::kFloat16, {3});
  h->SetDouble(0, 0.1);
  h->SetDouble(1, 1e6);
  h->SetInt(2, 3);
  EXPECT_EQ(h->GetDouble(0), 0.0999755859375);  // nearest float16
  EXPECT_TRUE(std::isinf(h->GetDouble(1)));
  EXPECT_EQ(h->GetInt(2), 3);

  auto bf = HostTensor::Zeros(DType::kBFloat16, {1});
  bf->SetDouble(0, 3.14159);
  EXPECT_EQ(bf->GetDouble(0), 3.140625);
}

TEST(StorageDTypes, OnnxTensorsOfEveryNewDTypeLoad) {
  onnx::TensorProto half;
  half.set_name("h");
  half.set_data_type(onnx::TensorProto::FLOAT16);
  half.add_dims(2);
  half.add_int32_data(0x3C00);  // 1.0
  half.add_int32_data(0xC000);  // -2.0
  auto h = frontend::HostTensorFromOnnx(half);
  ASSERT_TRUE(h.ok()) << h.status();
  EXPECT_EQ(h->dtype, DType::kFloat16);
  EXPECT_EQ(h->GetDouble(0), 1.0);
  EXPECT_EQ(h->GetDouble(1), -2.0);

  onnx::TensorProto bf;
  bf.set_data_type(onnx::TensorProto::BFLOAT16);
  bf.add_dims(1);
  const uint16_t bits = 0x4049;  // 3.140625
  bf.set_raw_data(std::string(reinterpret_cast<const char*>(&bits), 2));
  auto b = frontend::HostTensorFromOnnx(bf);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->GetDouble(0), 3.140625);

  onnx::TensorProto u64;
  u64.set_data_type(onnx::TensorProto::UINT64);
  u64.add_dims(2);
  u64.add_uint64_data(18446744073709551615ull);
  u64.add_uint64_data(7);
  auto u = frontend::HostTensorFromOnnx(u64);
  ASSERT_TRUE(u.ok()) << u.status();
  EXPECT_EQ(u->GetDouble(0), 18446744073709551615.0);
  EXPECT_EQ(u->GetInt(1), 7);

  onnx::TensorProto u32;
  u32.set_name("u32");
  u32.set_data_type(onnx::TensorProto::UINT32);
  u32.add_dims(2);
  u32.add_uint64_data(4000000000u);  // one value for two elements
  auto bad = frontend::HostTensorFromOnnx(u32);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.status().message()).find("tensor 'u32': has 1 values"), std::string::npos) << bad.status();

  onnx::TensorProto u16;
  u16.set_data_type(onnx::TensorProto::UINT16);
  u16.add_dims(1);
  u16.add_int32_data(65535);
  auto w = frontend::HostTensorFromOnnx(u16);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(w->GetInt(0), 65535);
}

// A one-node graph over an input of `in_type`, computed by ComputeNode.
absl::StatusOr<std::vector<TeTensor>> ComputeOne(const std::string& op, TensorType in_type, const Attrs& attrs) {
  Graph g;
  auto x = g.AddInput("x", in_type);
  if (!x.ok()) return x.status();
  auto out = g.AddNode(op, "n", {*x}, attrs);
  if (!out.ok()) return out.status();
  te::DagBuilder b;
  return ComputeNode(b, g.node(out->at(0).node), {b.Placeholder("x", in_type.dtype, in_type.shape)});
}

TEST(StorageDTypes, CastAndElementMovingOpsCarryFloat16) {
  Attrs to_float;
  to_float.Set("to", std::string("float32"));
  auto cast = ComputeOne("Cast", {DType::kFloat16, {2, 3}}, to_float);
  ASSERT_TRUE(cast.ok()) << cast.status();
  EXPECT_EQ((*cast)[0].dtype, DType::kFloat32);

  Attrs perm;
  perm.Set("perm", std::vector<int64_t>{1, 0});
  auto transposed = ComputeOne("Transpose", {DType::kBFloat16, {2, 3}}, perm);
  ASSERT_TRUE(transposed.ok()) << transposed.status();
  EXPECT_EQ((*transposed)[0].dtype, DType::kBFloat16);
}

TEST(StorageDTypes, ComputingOpsWorkInFloat32AndStoreSixteenBits) {
  // ONNX Runtime's CPU provider computes float16 ops in float32; so do the computes: widen,
  // compute, narrow. Checked end to end by interpreting a float16 Sigmoid.
  Graph g;
  auto x = g.AddInput("x", {DType::kFloat16, {3}});
  ASSERT_TRUE(x.ok());
  auto out = g.AddNode("Sigmoid", "n", {*x}, {});
  ASSERT_TRUE(out.ok()) << out.status();
  auto half = HostTensor::Zeros(DType::kFloat16, {3});
  ASSERT_TRUE(half.ok());
  for (int i = 0; i < 3; ++i) half->SetDouble(i, i - 1.0);  // -1, 0, 1
  auto r = EvaluateConstant(g.node(out->at(0).node), {&*half});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(r->has_value());
  const HostTensor& y = (**r)[0];
  EXPECT_EQ(y.dtype, DType::kFloat16);
  for (int i = 0; i < 3; ++i) {
    auto rounded = HostTensor::Zeros(DType::kFloat16, {1});
    rounded->SetDouble(0, 1.0 / (1.0 + std::exp(1.0 - i)));  // the float16 nearest the exact value
    EXPECT_EQ(y.GetDouble(i), rounded->GetDouble(0)) << i;
  }
}

TEST(StorageDTypes, ConstantCastToFloat16RoundsOnce) {
  Graph g;
  auto x = g.AddInput("x", {DType::kFloat64, {2}});
  Attrs attrs;
  attrs.Set("to", std::string("float16"));
  auto out = g.AddNode("Cast", "c", {*x}, attrs);
  ASSERT_TRUE(out.ok()) << out.status();
  HostTensor in;
  in.dtype = DType::kFloat64;
  in.shape = {2};
  in.bytes.resize(16);
  // Just above a float16 tie: direct rounding goes up, rounding through float32 would not.
  const double values[2] = {1.0 + 1.0 / 2048 + 1e-12, -65520.0};
  std::memcpy(in.bytes.data(), values, 16);
  auto r = EvaluateConstant(g.node(out->at(0).node), {&in}, 1 << 20);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(r->has_value());
  const HostTensor& h = (**r)[0];
  EXPECT_EQ(h.dtype, DType::kFloat16);
  EXPECT_EQ(h.GetDouble(0), 1.0 + 1.0 / 1024);
  EXPECT_EQ(h.GetDouble(1), -INFINITY);
}

}  // namespace
}  // namespace tunefarm::graph
