// The sandbox's kernels: float32, plain loops, doubles for accumulation.
#include <algorithm>
#include <cmath>
#include <limits>

#include "sandbox_arena.hpp"
#include "sandbox_ops.hpp"

namespace sandbox {

int64_t Tensor::size() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

namespace {

[[noreturn]] void error(const OpDesc& op, const std::string& what) {
  throw SandboxError{op.op + " node '" + op.name + "': " + what};
}

std::string dims_text(const Dims& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s + "]";
}

int64_t product(const Dims& d, size_t from, size_t to) {
  int64_t n = 1;
  for (size_t i = from; i < to && i < d.size(); ++i) n *= d[i];
  return n;
}

Dims broadcast(const OpDesc& op, const Dims& a, const Dims& b) {
  Dims out(std::max(a.size(), b.size()));
  for (size_t i = 0; i < out.size(); ++i) {
    int64_t x = i < out.size() - a.size() ? 1 : a[i - (out.size() - a.size())];
    int64_t y = i < out.size() - b.size() ? 1 : b[i - (out.size() - b.size())];
    if (x != y && x != 1 && y != 1)
      error(op, "cannot broadcast " + dims_text(a) + " with " + dims_text(b));
    out[i] = x == 1 ? y : x;
  }
  return out;
}

// Element strides of `d` aligned to `out` (0 where d broadcasts).
std::vector<int64_t> broadcast_strides(const Dims& d, const Dims& out) {
  std::vector<int64_t> s(out.size(), 0);
  int64_t stride = 1;
  for (size_t k = d.size(); k-- > 0;) {
    size_t o = k + (out.size() - d.size());
    s[o] = d[k] == 1 ? 0 : stride;
    stride *= d[k];
  }
  return s;
}

// Calls f(offset_a, offset_b) for every element of `out` in order.
template <typename F>
void for_each_broadcast(const Dims& out, const std::vector<int64_t>& sa,
                        const std::vector<int64_t>& sb, F f) {
  const int64_t n = product(out, 0, out.size());
  std::vector<int64_t> idx(out.size(), 0);
  int64_t oa = 0, ob = 0;
  for (int64_t i = 0; i < n; ++i) {
    f(oa, ob);
    for (size_t k = out.size(); k-- > 0;) {
      oa += sa[k];
      ob += sb[k];
      if (++idx[k] < out[k]) break;
      oa -= sa[k] * out[k];
      ob -= sb[k] * out[k];
      idx[k] = 0;
    }
  }
}

float unary(const OpDesc& op, float x) {
  const std::string& t = op.op;
  if (t == "Relu") return x > 0 ? x : 0;
  if (t == "Sigmoid") return float(1.0 / (1.0 + std::exp(-double(x))));
  if (t == "Tanh") return std::tanh(x);
  if (t == "Exp") return std::exp(x);
  if (t == "Log") return std::log(x);
  if (t == "Neg") return -x;
  if (t == "Abs") return std::fabs(x);
  if (t == "Sqrt") return std::sqrt(x);
  if (t == "Erf") return std::erf(x);
  if (t == "Reciprocal") return 1.0f / x;
  if (t == "Floor") return std::floor(x);
  if (t == "Ceil") return std::ceil(x);
  if (t == "LeakyRelu") return x >= 0 ? x : op.alpha * x;
  if (t == "Elu") return x >= 0 ? x : float(op.alpha * (std::exp(double(x)) - 1.0));
  if (t == "Softplus") return float(std::log1p(std::exp(double(x))));
  error(op, "not an element-wise op");
}

bool is_binary(const std::string& t) {
  return t == "Add" || t == "Sub" || t == "Mul" || t == "Div";
}

// Spatial geometry of Conv and the pools, with 1-D ops seen as 2-D of height 1.
struct Window {
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1, pt = 0, pl = 0, oh = 1, ow = 1;
};

Window window(const OpDesc& op, const Dims& x, Dims kernel) {
  if (x.size() != 3 && x.size() != 4) error(op, "only 1-D and 2-D inputs, got " + dims_text(x));
  const size_t s = x.size() - 2;
  if (kernel.size() != s)
    error(op, "kernel_shape " + dims_text(kernel) + " for input " + dims_text(x));
  auto get = [&](const Dims& v, size_t i, int64_t def) { return v.size() == s ? v[i] : def; };
  std::vector<int64_t> out(s), begin(s);
  for (size_t i = 0; i < s; ++i) {
    int64_t in = x[2 + i], k = kernel[i], st = get(op.strides, i, 1), dl = get(op.dilations, i, 1);
    if (st < 1 || dl < 1 || k < 1) error(op, "kernel, strides and dilations must be positive");
    int64_t span = (k - 1) * dl + 1;
    if (op.auto_pad == "SAME_UPPER" || op.auto_pad == "SAME_LOWER") {
      out[i] = (in + st - 1) / st;
      int64_t total = std::max<int64_t>(0, (out[i] - 1) * st + span - in);
      begin[i] = op.auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
    } else {
      int64_t pb = 0, pe = 0;
      if (op.auto_pad == "NOTSET" && op.pads.size() == 2 * s) {
        pb = op.pads[i];
        pe = op.pads[i + s];
      } else if (op.auto_pad != "NOTSET" && op.auto_pad != "VALID") {
        error(op, "unknown auto_pad '" + op.auto_pad + "'");
      }
      if (pb < 0 || pe < 0) error(op, "negative pads");
      out[i] = in + pb + pe >= span ? (in + pb + pe - span) / st + 1 : 0;
      begin[i] = pb;
    }
  }
  Window w;
  size_t o = s == 2 ? 1 : 0;  // index of the width dim
  w.kw = kernel[o];
  w.sw = get(op.strides, o, 1);
  w.dw = get(op.dilations, o, 1);
  w.pl = begin[o];
  w.ow = out[o];
  if (s == 2) {
    w.kh = kernel[0];
    w.sh = get(op.strides, 0, 1);
    w.dh = get(op.dilations, 0, 1);
    w.pt = begin[0];
    w.oh = out[0];
  }
  return w;
}

Dims spatial_out(const Dims& x, int64_t channels, const Window& w) {
  Dims out = {x[0], channels};
  if (x.size() == 4) out.push_back(w.oh);
  out.push_back(w.ow);
  return out;
}

Dims kernel_of(const OpDesc& op, const std::vector<const Tensor*>& in) {
  if (!op.kernel_shape.empty() || op.op != "Conv") return op.kernel_shape;
  return Dims(in[1]->dims.begin() + 2, in[1]->dims.end());
}

void conv(const OpDesc& op, const std::vector<const Tensor*>& in, Tensor& out) {
  const Tensor& x = *in[0];
  const Tensor& w = *in[1];
  const Tensor* b = in.size() > 2 ? in[2] : nullptr;
  Window g = window(op, x.dims, kernel_of(op, in));
  const int64_t n = x.dims[0], c = x.dims[1], m = w.dims[0], groups = op.group;
  const int64_t h = x.dims.size() == 4 ? x.dims[2] : 1, wd = x.dims.back();
  const int64_t cg = c / groups, mg = m / groups;
  for (int64_t ni = 0; ni < n; ++ni)
    for (int64_t mi = 0; mi < m; ++mi) {
      const int64_t gi = mi / mg;
      float* o = out.data + (ni * m + mi) * g.oh * g.ow;
      for (int64_t oy = 0; oy < g.oh; ++oy)
        for (int64_t ox = 0; ox < g.ow; ++ox) {
          double acc = b ? b->data[mi] : 0.0;
          for (int64_t ci = 0; ci < cg; ++ci) {
            const float* xp = x.data + (ni * c + gi * cg + ci) * h * wd;
            const float* wp = w.data + (mi * cg + ci) * g.kh * g.kw;
            for (int64_t ky = 0; ky < g.kh; ++ky) {
              int64_t iy = oy * g.sh - g.pt + ky * g.dh;
              if (iy < 0 || iy >= h) continue;
              for (int64_t kx = 0; kx < g.kw; ++kx) {
                int64_t ix = ox * g.sw - g.pl + kx * g.dw;
                if (ix >= 0 && ix < wd) acc += double(xp[iy * wd + ix]) * wp[ky * g.kw + kx];
              }
            }
          }
          o[oy * g.ow + ox] = float(acc);
        }
    }
}

void pool(const OpDesc& op, const Tensor& x, Tensor& out) {
  Window g = window(op, x.dims, op.kernel_shape);
  const bool is_max = op.op == "MaxPool";
  const int64_t planes = x.dims[0] * x.dims[1];
  const int64_t h = x.dims.size() == 4 ? x.dims[2] : 1, wd = x.dims.back();
  for (int64_t p = 0; p < planes; ++p) {
    const float* xp = x.data + p * h * wd;
    float* o = out.data + p * g.oh * g.ow;
    for (int64_t oy = 0; oy < g.oh; ++oy)
      for (int64_t ox = 0; ox < g.ow; ++ox) {
        double acc = is_max ? -std::numeric_limits<double>::infinity() : 0.0;
        int64_t count = 0;
        for (int64_t ky = 0; ky < g.kh; ++ky) {
          int64_t iy = oy * g.sh - g.pt + ky * g.dh;
          for (int64_t kx = 0; kx < g.kw; ++kx) {
            int64_t ix = ox * g.sw - g.pl + kx * g.dw;
            if (iy < 0 || iy >= h || ix < 0 || ix >= wd) continue;
            double v = xp[iy * wd + ix];
            acc = is_max ? std::max(acc, v) : acc + v;
            ++count;
          }
        }
        if (!is_max) {
          int64_t divisor = op.count_include_pad ? g.kh * g.kw : count;
          acc = divisor ? acc / double(divisor) : 0.0;
        }
        o[oy * g.ow + ox] = float(acc);
      }
  }
}

void matmul(const OpDesc& op, const Tensor& a0, const Tensor& b0, Tensor& out) {
  Dims a = a0.dims, b = b0.dims;
  if (a.size() == 1) a.insert(a.begin(), 1);
  if (b.size() == 1) b.push_back(1);
  const int64_t m = a[a.size() - 2], k = a.back(), n = b.back();
  Dims ab(a.begin(), a.end() - 2), bb(b.begin(), b.end() - 2);
  Dims batch = broadcast(op, ab, bb);
  auto sa = broadcast_strides(ab, batch), sb = broadcast_strides(bb, batch);
  int64_t bi = 0;
  for_each_broadcast(batch, sa, sb, [&](int64_t oa, int64_t ob) {
    const float* pa = a0.data + oa * m * k;
    const float* pb = b0.data + ob * k * n;
    float* po = out.data + bi++ * m * n;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t q = 0; q < k; ++q) acc += double(pa[i * k + q]) * pb[q * n + j];
        po[i * n + j] = float(acc);
      }
  });
}

void gemm(const OpDesc& op, const std::vector<const Tensor*>& in, Tensor& out) {
  const Tensor& a = *in[0];
  const Tensor& b = *in[1];
  const Tensor* c = in.size() > 2 ? in[2] : nullptr;
  const int64_t m = out.dims[0], n = out.dims[1], k = op.trans_a ? a.dims[0] : a.dims[1];
  std::vector<int64_t> sc;
  if (c) sc = broadcast_strides(c->dims, out.dims);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (int64_t q = 0; q < k; ++q) {
        float x = op.trans_a ? a.data[q * m + i] : a.data[i * k + q];
        float y = op.trans_b ? b.data[j * k + q] : b.data[q * n + j];
        acc += double(x) * y;
      }
      acc *= op.alpha;
      if (c) acc += double(op.beta) * c->data[i * sc[0] + j * sc[1]];
      out.data[i * n + j] = float(acc);
    }
}

void softmax(const OpDesc& op, const Tensor& x, Tensor& out) {
  const int64_t r = int64_t(x.dims.size());
  int64_t axis = op.has_axis ? op.axis : (op.opset < 13 ? 1 : -1);
  if (axis < 0) axis += r;
  if (r == 0 || axis < 0 || axis >= r) error(op, "axis out of range for " + dims_text(x.dims));
  // Before opset 13 the input is coerced to 2-D at `axis`; since then one axis.
  int64_t outer = product(x.dims, 0, size_t(axis));
  int64_t len = op.opset < 13 ? product(x.dims, size_t(axis), size_t(r)) : x.dims[size_t(axis)];
  int64_t inner = op.opset < 13 ? 1 : product(x.dims, size_t(axis) + 1, size_t(r));
  const bool log_out = op.op == "LogSoftmax";
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      const float* xp = x.data + o * len * inner + i;
      float* op_ = out.data + o * len * inner + i;
      double mx = -std::numeric_limits<double>::infinity();
      for (int64_t k = 0; k < len; ++k) mx = std::max(mx, double(xp[k * inner]));
      double sum = 0;
      for (int64_t k = 0; k < len; ++k) sum += std::exp(double(xp[k * inner]) - mx);
      for (int64_t k = 0; k < len; ++k) {
        double v = double(xp[k * inner]) - mx;
        op_[k * inner] = float(log_out ? v - std::log(sum) : std::exp(v) / sum);
      }
    }
}

}  // namespace

Dims output_dims(const OpDesc& op, const std::vector<const Tensor*>& in) {
  auto need = [&](size_t count) {
    for (size_t i = 0; i < count; ++i)
      if (i >= in.size() || !in[i]) error(op, "input " + std::to_string(i) + " is missing");
  };
  need(1);
  const Dims& x = in[0]->dims;
  if (is_binary(op.op)) {
    need(2);
    return broadcast(op, x, in[1]->dims);
  }
  if (op.op == "MatMul") {
    need(2);
    Dims a = x, b = in[1]->dims;
    if (a.empty() || b.empty()) error(op, "MatMul of a scalar");
    Dims ap = a.size() == 1 ? Dims{1, a[0]} : a, bp = b.size() == 1 ? Dims{b[0], 1} : b;
    if (ap.back() != bp[bp.size() - 2])
      error(op, "inner dimensions differ: " + dims_text(a) + " x " + dims_text(b));
    Dims out = broadcast(op, Dims(ap.begin(), ap.end() - 2), Dims(bp.begin(), bp.end() - 2));
    if (a.size() > 1) out.push_back(ap[ap.size() - 2]);
    if (b.size() > 1) out.push_back(bp.back());
    return out;
  }
  if (op.op == "Gemm") {
    need(2);
    const Dims& b = in[1]->dims;
    if (x.size() != 2 || b.size() != 2) error(op, "Gemm needs 2-D A and B");
    int64_t m = op.trans_a ? x[1] : x[0], ka = op.trans_a ? x[0] : x[1];
    int64_t kb = op.trans_b ? b[1] : b[0], n = op.trans_b ? b[0] : b[1];
    if (ka != kb) error(op, "inner dimensions differ: " + dims_text(x) + " x " + dims_text(b));
    if (in.size() > 2 && in[2]) {
      const Dims& c = in[2]->dims;
      if (c.size() > 2 || broadcast(op, c, {m, n}) != Dims{m, n})
        error(op, "C " + dims_text(c) + " does not broadcast to [" + std::to_string(m) + "," +
                      std::to_string(n) + "]");
    }
    return {m, n};
  }
  if (op.op == "Conv") {
    need(2);
    const Dims& w = in[1]->dims;
    if (w.size() != x.size() || op.group < 1 || x[1] % op.group || w[0] % op.group ||
        w[1] * op.group != x[1])
      error(op, "weights " + dims_text(w) + " do not fit input " + dims_text(x) + " with group " +
                    std::to_string(op.group));
    if (in.size() > 2 && in[2] && in[2]->dims != Dims{w[0]}) error(op, "bias shape does not match");
    // The kernels size their window from kernel_shape when it is given: it
    // must be W's own spatial shape, or they would read past the end of W.
    if (!op.kernel_shape.empty() && op.kernel_shape != Dims(w.begin() + 2, w.end()))
      error(op, "kernel_shape " + dims_text(op.kernel_shape) + " does not match weights " +
                    dims_text(w));
    return spatial_out(x, w[0], window(op, x, kernel_of(op, in)));
  }
  if (op.op == "MaxPool" || op.op == "AveragePool")
    return spatial_out(x, x[1], window(op, x, op.kernel_shape));
  if (op.op == "GlobalAveragePool" || op.op == "GlobalMaxPool") {
    if (x.size() < 3) error(op, "input rank must be at least 3, got " + dims_text(x));
    Dims out = x;
    for (size_t i = 2; i < out.size(); ++i) out[i] = 1;
    return out;
  }
  return x;  // element-wise and softmax
}

void run_op(const OpDesc& op, const std::vector<const Tensor*>& in, Tensor& out) {
  const int64_t n = out.size();
  if (is_binary(op.op)) {
    const Tensor& a = *in[0];
    const Tensor& b = *in[1];
    auto sa = broadcast_strides(a.dims, out.dims), sb = broadcast_strides(b.dims, out.dims);
    float* o = out.data;
    const char t = op.op[0];
    for_each_broadcast(out.dims, sa, sb, [&](int64_t ia, int64_t ib) {
      float x = a.data[ia], y = b.data[ib];
      *o++ = t == 'A' ? x + y : t == 'S' ? x - y : t == 'M' ? x * y : x / y;
    });
  } else if (op.op == "MatMul") {
    matmul(op, *in[0], *in[1], out);
  } else if (op.op == "Gemm") {
    gemm(op, in, out);
  } else if (op.op == "Conv") {
    conv(op, in, out);
  } else if (op.op == "MaxPool" || op.op == "AveragePool") {
    pool(op, *in[0], out);
  } else if (op.op == "GlobalAveragePool" || op.op == "GlobalMaxPool") {
    const int64_t planes = in[0]->dims[0] * in[0]->dims[1];
    const int64_t len = planes ? in[0]->size() / planes : 0;
    for (int64_t p = 0; p < planes; ++p) {
      const float* x = in[0]->data + p * len;
      double acc = op.op == "GlobalMaxPool" ? -std::numeric_limits<double>::infinity() : 0.0;
      for (int64_t k = 0; k < len; ++k)
        acc = op.op == "GlobalMaxPool" ? std::max(acc, double(x[k])) : acc + x[k];
      out.data[p] = float(op.op == "GlobalMaxPool" ? acc : (len ? acc / double(len) : 0.0));
    }
  } else if (op.op == "Softmax" || op.op == "LogSoftmax") {
    softmax(op, *in[0], out);
  } else {
    for (int64_t i = 0; i < n; ++i) out.data[i] = unary(op, in[0]->data[i]);
  }
}

}  // namespace sandbox
