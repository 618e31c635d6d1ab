#include "bench/compiler/onednn_conv.h"

#include <omp.h>

#include <dnnl.hpp>

namespace tunefarm::bench {

using dnnl::memory;
using tag = memory::format_tag;
using dt = memory::data_type;

struct OneDnnConv::Impl {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  memory src, weights, dst;
  memory::desc dst_plain;
  dnnl::convolution_forward conv;
};

OneDnnConv::OneDnnConv(const ConvShape& p, const float* src, const float* weights) : impl_(new Impl) {
  Impl& m = *impl_;
  // Grouped weights are the same OIHW bytes seen as [groups, k / groups, c / groups, r, s].
  const bool grouped = p.groups > 1;
  memory::dims src_dims = {p.n, p.c, p.h, p.w}, dst_dims = {p.n, p.k, p.OutH(), p.OutW()};
  memory::dims wei_dims = grouped ? memory::dims{p.groups, p.k / p.groups, p.c / p.groups, p.r, p.s}
                                  : memory::dims{p.k, p.c, p.r, p.s};
  memory::dims strides = {p.stride, p.stride}, pads = {p.pad, p.pad};
  auto desc = dnnl::convolution_forward::desc(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, memory::desc(src_dims, dt::f32, tag::any),
      memory::desc(wei_dims, dt::f32, tag::any), memory::desc(dst_dims, dt::f32, tag::any), strides, pads, pads);
  dnnl::convolution_forward::primitive_desc pd(desc, m.engine);
  m.conv = dnnl::convolution_forward(pd);
  // Inputs in oneDNN's chosen layouts, converted once (not timed).
  memory user_src({src_dims, dt::f32, tag::nchw}, m.engine, const_cast<float*>(src));
  memory user_wei({wei_dims, dt::f32, grouped ? tag::goihw : tag::oihw}, m.engine, const_cast<float*>(weights));
  m.src = memory(pd.src_desc(), m.engine);
  m.weights = memory(pd.weights_desc(), m.engine);
  m.dst = memory(pd.dst_desc(), m.engine);
  m.dst_plain = memory::desc(dst_dims, dt::f32, tag::nchw);
  dnnl::reorder(user_src, m.src).execute(m.stream, user_src, m.src);
  dnnl::reorder(user_wei, m.weights).execute(m.stream, user_wei, m.weights);
  m.stream.wait();
}

OneDnnConv::~OneDnnConv() = default;

void OneDnnConv::Run() {
  Impl& m = *impl_;
  m.conv.execute(m.stream, {{DNNL_ARG_SRC, m.src}, {DNNL_ARG_WEIGHTS, m.weights}, {DNNL_ARG_DST, m.dst}});
  m.stream.wait();
}

std::vector<float> OneDnnConv::OutputNchw() {
  Impl& m = *impl_;
  std::vector<float> out(m.dst_plain.get_size() / sizeof(float));
  memory plain(m.dst_plain, m.engine, out.data());
  dnnl::reorder(m.dst, plain).execute(m.stream, m.dst, plain);
  m.stream.wait();
  return out;
}

void SetOneDnnThreads(int threads) { omp_set_num_threads(threads); }

}  // namespace tunefarm::bench
