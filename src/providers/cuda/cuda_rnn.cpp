// RNN, GRU and LSTM (opset 7 on: 14's layout, 22's bfloat16) in float32,
// float16 and bfloat16, with every input and attribute the spec has. A run
// is one cuBLASLt product for the input projection of every step and
// direction (X * W^T), then per time step one product of the state with R^T
// for both directions at once and one step kernel (rnn.cu) for the gates;
// GRU without linear_before_reset needs r before its hidden gate's product,
// so its step is two of each. State and arithmetic are float; float16 and
// bfloat16 inputs are widened once per run. Nothing waits for the stream:
// sequence_lens is checked on the device and read back at the run's wait.
#include "ops/rnn_attrs.hpp"
#include "providers/cuda/cuda_call.hpp"
#include "providers/cuda/cuda_kernel.hpp"
#include "providers/cuda/rnn_gemm.hpp"
#include "providers/cuda/rnn_launch.hpp"

namespace tessera::cuda {

namespace {

// The step kernels number the activations as ops::rnn::ActKind does.
static_assert(int(ops::rnn::ActKind::kRelu) == 0 && int(ops::rnn::ActKind::kTanh) == 1 &&
              int(ops::rnn::ActKind::kSigmoid) == 2 && int(ops::rnn::ActKind::kAffine) == 3 &&
              int(ops::rnn::ActKind::kLeakyRelu) == 4 &&
              int(ops::rnn::ActKind::kThresholdedRelu) == 5 &&
              int(ops::rnn::ActKind::kScaledTanh) == 6 &&
              int(ops::rnn::ActKind::kHardSigmoid) == 7 && int(ops::rnn::ActKind::kElu) == 8 &&
              int(ops::rnn::ActKind::kSoftsign) == 9 && int(ops::rnn::ActKind::kSoftplus) == 10);

enum class Op { kRnn, kGru, kLstm };

int64_t gates_of(Op op) { return op == Op::kRnn ? 1 : (op == Op::kGru ? 3 : 4); }

using Dims = ops::rnn::RnnDims;

// Input i as float in device memory: the tensor itself when it is float,
// else a widened copy in scratch; null when the input is absent.
const float* floats_of(const Tensor* t, Scratch& scratch, cudaStream_t stream) {
  if (!t) return nullptr;
  if (t->dtype() == DataType::kFloat) return static_cast<const float*>(t->raw_data());
  const int64_t n = t->num_elements();
  auto* f = static_cast<float*>(scratch.bytes(size_t(n) * sizeof(float)));
  check_cuda(launch_rnn_to_float(elem_type(t->dtype()), t->raw_data(), f, n, stream),
             "launch of the recurrent op's float conversion");
  return f;
}

float* floats(Scratch& scratch, int64_t n) {
  return static_cast<float*>(scratch.bytes(size_t(n) * sizeof(float)));
}

class CudaRecurrent : public CudaKernel {
 public:
  CudaRecurrent(const ep::KernelInfo& info, const EnvPtr& env, Op op)
      : CudaKernel(env),
        op_(op),
        gates_(gates_of(op)),
        a_(ops::rnn::parse_rnn_attrs(info.node(), info.opset())),
        linear_before_reset_(op == Op::kGru && info.attr_int("linear_before_reset", 0) != 0),
        input_forget_(op == Op::kLstm && info.attr_int("input_forget", 0) != 0) {
    const size_t per_dir = a_.acts.size() / size_t(a_.num_directions);
    for (int64_t d = 0; d < a_.num_directions; ++d)
      for (size_t k = 0; k < per_dir; ++k) {
        const ops::rnn::Activation& f = a_.acts[size_t(d) * per_dir + k];
        acts_[size_t(d) * 3 + k] = {int(f.kind), f.alpha, f.beta};
      }
  }

  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch& scratch) const override {
    const Dims d = check_inputs(ctx);
    const Tensor& x = ctx.required_input(0);
    const ElemType et = elem_type(x.dtype());
    const int64_t H = d.hidden, G = gates_, D = d.dirs, B = d.batch;
    const bool layout1 = a_.layout == 1;
    void* y = nullptr;
    if (ctx.has_output(0))
      y = ctx.output(0, layout1 ? Shape{B, d.seq, D, H} : Shape{d.seq, D, B, H}).mutable_raw_data();
    const Shape state_shape = layout1 ? Shape{B, D, H} : Shape{D, B, H};
    void* y_h = ctx.has_output(1) ? ctx.output(1, state_shape).mutable_raw_data() : nullptr;
    void* y_c = op_ == Op::kLstm && ctx.has_output(2)
                    ? ctx.output(2, state_shape).mutable_raw_data()
                    : nullptr;
    if (B == 0) return;  // every output is empty

    const int32_t* lens = nullptr;
    if (const Tensor* l = ctx.input(4)) {
      lens = static_cast<const int32_t*>(l->raw_data());
      check_lens(ctx, lens, d, stream, scratch);
    }
    float* h = floats(scratch, D * B * H);
    check_cuda(launch_rnn_load_state(et, raw_or_null(ctx.input(5)), h, D, B, H, a_.layout, stream),
               "launch of the recurrent op's state load");
    float* c = nullptr;
    if (op_ == Op::kLstm) {
      c = floats(scratch, D * B * H);
      check_cuda(
          launch_rnn_load_state(et, raw_or_null(ctx.input(6)), c, D, B, H, a_.layout, stream),
          "launch of the recurrent op's state load");
    }

    if (d.seq > 0) {
      RnnStep s;
      s.type = et;
      s.seq = d.seq;
      s.batch = B;
      s.hidden = H;
      s.dirs = D;
      s.gates = G;
      s.layout = int(a_.layout);
      s.reverse = a_.reverse;
      s.bias = floats_of(ctx.input(3), scratch, stream);
      s.peep = op_ == Op::kLstm ? floats_of(ctx.input(7), scratch, stream) : nullptr;
      s.lens = lens;
      s.h = h;
      s.c = c;
      s.y = y;
      s.has_clip = a_.has_clip;
      s.clip = a_.clip;
      s.input_forget = input_forget_;
      for (int k = 0; k < 6; ++k) s.act[k] = acts_[size_t(k)];
      s.xw = project_inputs(ctx, d, stream, scratch);
      walk_steps(ctx, d, s, stream, scratch);
    }
    if (y_h)
      check_cuda(launch_rnn_store_state(et, h, y_h, D, B, H, a_.layout, stream),
                 "launch of the recurrent op's state store");
    if (y_c)
      check_cuda(launch_rnn_store_state(et, c, y_c, D, B, H, a_.layout, stream),
                 "launch of the recurrent op's state store");
  }

 private:
  static const void* raw_or_null(const Tensor* t) { return t ? t->raw_data() : nullptr; }

  // X * W^T for every step and direction, rows in X's own order (the step
  // kernel indexes them by layout): [rows, dirs * gates * hidden].
  const float* project_inputs(const ep::KernelContext& ctx, const Dims& d, cudaStream_t stream,
                              Scratch& scratch) const {
    const int64_t rows = d.seq * d.batch, n = d.dirs * gates_ * d.hidden;
    float* xw = floats(scratch, rows * n);
    if (d.input == 0) {  // an empty sum
      check_cuda(cudaMemsetAsync(xw, 0, size_t(rows * n) * sizeof(float), stream),
                 "cudaMemsetAsync (the recurrent op's input projection)");
      return xw;
    }
    const float* xf = floats_of(&ctx.required_input(0), scratch, stream);
    const float* wf = floats_of(&ctx.required_input(1), scratch, stream);
    RnnGemmShape g;
    g.m = rows;
    g.n = n;
    g.k = d.input;
    RnnGemm(env(), gemms_, ctx, g, xf, wf, xw, scratch).run(xf, wf, xw, stream);
    return xw;
  }

  // Every time step: the recurrent product(s) and the step kernel(s).
  void walk_steps(const ep::KernelContext& ctx, const Dims& d, RnnStep& s, cudaStream_t stream,
                  Scratch& scratch) const {
    const int64_t H = d.hidden, D = d.dirs, B = d.batch, GH = gates_ * H;
    const float* rf = floats_of(&ctx.required_input(2), scratch, stream);
    const bool split = op_ == Op::kGru && !linear_before_reset_;
    // Without linear_before_reset, GRU's first product covers z and r only.
    const int64_t width = split ? 2 * H : GH;
    float* hr = floats(scratch, D * B * width);
    RnnGemmShape g;
    g.m = B;
    g.n = width;
    g.k = H;
    g.batch = D;
    g.stride_a = B * H;
    g.stride_b = GH * H;
    g.stride_d = B * width;
    const RnnGemm rec(env(), gemms_, ctx, g, s.h, rf, hr, scratch);
    if (!split) {
      s.cell = op_ == Op::kRnn ? RnnCell::kRnn
                               : (op_ == Op::kLstm ? RnnCell::kLstm : RnnCell::kGruLinear);
      s.hr = hr;
      for (int64_t t = 0; t < d.seq; ++t) {
        s.step = t;
        rec.run(s.h, rf, hr, stream);
        check_cuda(launch_rnn_step(s, stream), "launch of the recurrent step kernel");
      }
      return;
    }
    s.zr = floats(scratch, D * B * 2 * H);
    s.rh = floats(scratch, D * B * H);
    float* hr_h = floats(scratch, D * B * H);
    const float* r_h = rf + 2 * H * H;  // the h gate's rows of R
    g.n = H;
    g.stride_d = B * H;
    const RnnGemm rec_h(env(), gemms_, ctx, g, s.rh, r_h, hr_h, scratch);
    for (int64_t t = 0; t < d.seq; ++t) {
      s.step = t;
      rec.run(s.h, rf, hr, stream);
      s.cell = RnnCell::kGruGates;
      s.hr = hr;
      check_cuda(launch_rnn_step(s, stream), "launch of the recurrent step kernel");
      rec_h.run(s.rh, r_h, hr_h, stream);
      s.cell = RnnCell::kGruHidden;
      s.hr = hr_h;
      check_cuda(launch_rnn_step(s, stream), "launch of the recurrent step kernel");
    }
  }

  // sequence_lens is checked on the device and read back when the run next
  // waits for its stream: a wait here would stall the queue and break a
  // CUDA graph capture. Meanwhile the step kernels clamp bad entries.
  static void check_lens(const ep::KernelContext& ctx, const int32_t* lens, const Dims& d,
                         cudaStream_t stream, Scratch& scratch) {
    auto* error = static_cast<RnnLensError*>(scratch.lasting_bytes(sizeof(RnnLensError)));
    check_cuda(launch_rnn_check_lens(lens, d.batch, d.seq, error, stream),
               "launch of the sequence_lens check");
    scratch.defer_check([error, seq = d.seq, node = ctx.node().describe()] {
      RnnLensError found{};
      check_cuda(cudaMemcpy(&found, error, sizeof(found), cudaMemcpyDeviceToHost),
                 "cudaMemcpy (reading the sequence_lens check)");
      if (found.index >= 0)
        fail(ErrorCode::kInvalidArgument, node, ": sequence_lens[", found.index,
             "] = ", found.value, " is outside [0, ", seq, "]");
    });
  }

  Dims check_inputs(const ep::KernelContext& ctx) const {
    std::vector<const Tensor*> inputs;
    for (size_t i = 0; i < 8; ++i) inputs.push_back(ctx.input(i));
    return ops::rnn::check_rnn_inputs(ctx.node(), a_, gates_, inputs);
  }

  Op op_;
  int64_t gates_;
  ops::rnn::RnnAttrs a_;
  bool linear_before_reset_, input_forget_;
  RnnActivation acts_[6];
  RnnGemmCache gemms_;
};

template <Op O>
std::unique_ptr<ep::OpKernel> make_recurrent(const ep::KernelInfo& info, const EnvPtr& env) {
  return std::make_unique<CudaRecurrent>(info, env, O);
}

// The kernel takes every attribute value the spec allows; a node whose
// attributes are invalid is left to the next provider, which reports them.
std::string check_recurrent(const ep::ClaimQuery& q) {
  try {
    ops::rnn::parse_rnn_attrs(q.node(), q.opset());
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// T on X, W, R, B, initial_h (, initial_c, P); T1 (int32) on sequence_lens.
ep::KernelDef def(const char* op, bool lstm) {
  std::vector<int> ts = {0, 1, 2, 3, 5};
  if (lstm) ts.insert(ts.end(), {6, 7});
  return {"", op, 7, ep::kOpsetMax, {{"T", ts, kCudaFloats}, {"T1", {4}, {DataType::kInt32}}}};
}

}  // namespace

void register_cuda_recurrent(CudaOpTable& t) {
  t.add(def("RNN", false), make_recurrent<Op::kRnn>, check_recurrent);
  t.add(def("GRU", false), make_recurrent<Op::kGru>, check_recurrent);
  t.add(def("LSTM", true), make_recurrent<Op::kLstm>, check_recurrent);
}

}  // namespace tessera::cuda
