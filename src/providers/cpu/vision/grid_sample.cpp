// GridSample (opsets 16, 20, 22): N-D nearest / (N-)linear / (N-)cubic
// sampling with zeros, border or reflection padding. Opset 16 names the
// modes bilinear/bicubic and allows only 4-D input; both spellings are accepted.
#include <algorithm>
#include <cmath>

#include "providers/cpu/quant/element_io.hpp"
#include "providers/cpu/vision/vision_kernels.hpp"

namespace tessera::cpu {

namespace {

enum class Mode { kNearest, kLinear, kCubic };
enum class Pad { kZeros, kBorder, kReflection };

double reflect(double x, double lo, double hi) {
  double rng = hi - lo;
  if (rng <= 0) return lo;
  // The fold count stays a double: a huge or infinite grid value would make an
  // integer conversion undefined. NaN and infinities pass through (and read 0).
  if (!std::isfinite(x)) return x;
  if (x < lo) {
    double dx = lo - x;
    double n = std::trunc(dx / rng);
    double r = dx - n * rng;
    return std::fmod(n, 2.0) == 0 ? lo + r : hi - r;
  }
  if (x > hi) {
    double dx = x - hi;
    double n = std::trunc(dx / rng);
    double r = dx - n * rng;
    return std::fmod(n, 2.0) == 0 ? hi - r : lo + r;
  }
  return x;
}

void cubic_coeffs(double t, double c[4]) {
  const double a = -0.75;
  double x = std::fabs(t);
  c[0] = ((a * (x + 1) - 5 * a) * (x + 1) + 8 * a) * (x + 1) - 4 * a;
  c[1] = ((a + 2) * x - (a + 3)) * x * x + 1;
  c[2] = ((a + 2) * (1 - x) - (a + 3)) * (1 - x) * (1 - x) + 1;
  c[3] = ((a * (2 - x) - 5 * a) * (2 - x) + 8 * a) * (2 - x) - 4 * a;
}

class GridSampleKernel : public ep::OpKernel {
 public:
  explicit GridSampleKernel(const ep::KernelInfo& info)
      : align_(info.attr_int("align_corners", 0) != 0), opset_(info.opset()) {
    std::string m = info.attr_string("mode", info.opset() >= 20 ? "linear" : "bilinear");
    if (m == "nearest")
      mode_ = Mode::kNearest;
    else if (m == "linear" || m == "bilinear")
      mode_ = Mode::kLinear;
    else if (m == "cubic" || m == "bicubic")
      mode_ = Mode::kCubic;
    else
      info.fail_node("unknown mode '", m, "'");
    std::string p = info.attr_string("padding_mode", "zeros");
    if (p == "zeros")
      pad_ = Pad::kZeros;
    else if (p == "border")
      pad_ = Pad::kBorder;
    else if (p == "reflection")
      pad_ = Pad::kReflection;
    else
      info.fail_node("unknown padding_mode '", p, "'");
  }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& grid = ctx.required_input(1);
    const size_t r = x.rank() >= 2 ? x.rank() - 2 : 0;
    if (x.rank() < 3 || grid.rank() != x.rank() || grid.shape()[0] != x.shape()[0] ||
        grid.shape()[grid.rank() - 1] != int64_t(r))
      ctx.fail_node("X ", x.shape().to_string(), " and grid ", grid.shape().to_string(),
                    " do not match: grid must be (N, D1_out, ..., Dr_out, r)");
    if (opset_ < 20 && x.rank() != 4)
      ctx.fail_node("opset ", opset_, " GridSample takes 4-D input, got ", x.shape().to_string());
    const int64_t N = x.shape()[0], C = x.shape()[1];
    std::vector<int64_t> in(r), odims = {N, C};
    for (size_t i = 0; i < r; ++i) in[i] = x.shape()[i + 2];
    for (size_t i = 0; i < r; ++i) odims.push_back(grid.shape()[i + 1]);
    Shape out_shape(odims);
    const int64_t in_size = x.shape().size_from(2), out_size = out_shape.size_from(2);
    if (r == 2 && mode_ != Mode::kCubic && x.dtype() == DataType::kFloat &&
        grid.dtype() == DataType::kFloat && in[0] > 0 && in[1] > 0) {
      Tensor& y = ctx.output(0, out_shape, x.dtype());
      sample_planes_2d(ctx, x, grid, in[0], in[1], out_size, y);
      return;
    }
    auto xd = read_as<double>(x);
    auto gd = read_as<double>(grid);
    std::vector<double> out(size_t(out_shape.num_elements()));
    std::vector<double> lo(r), hi(r);
    for (size_t i = 0; i < r; ++i) {
      lo[i] = align_ ? 0.0 : -0.5;
      hi[i] = align_ ? double(in[i] - 1) : double(in[i]) - 0.5;
    }
    ctx.thread_pool().parallel_for(
        N * out_size, double(C * (1 << (2 * r))), [&](int64_t b, int64_t e) {
          std::vector<double> pos(r);
          for (int64_t no = b; no < e; ++no) {
            int64_t n = no / out_size, o = no % out_size;
            const double* g = gd.data() + no * int64_t(r);
            // The grid lists the innermost dimension first.
            for (size_t i = 0; i < r; ++i) pos[i] = source_coord(g[r - 1 - i], in[i], lo[i], hi[i]);
            for (int64_t c = 0; c < C; ++c) {
              const double* img = xd.data() + (n * C + c) * in_size;
              out[size_t((n * C + c) * out_size + o)] = interpolate(img, in, lo, hi, pos);
            }
          }
        });
    Tensor& y = ctx.output(0, out_shape, x.dtype());
    write_from(y, out.data());
  }

 private:
  // Where grid value g (in [-1, 1] across an input dimension of length len)
  // reads, after the rounding of nearest mode and the border and reflection rules.
  double source_coord(double g, int64_t len_i, double lo, double hi) const {
    const double len = double(len_i);
    double v = align_ ? (g + 1) / 2 * (len - 1) : ((g + 1) * len - 1) / 2;
    if (mode_ == Mode::kNearest) v = std::nearbyint(v);
    if (v < lo || v > hi) {
      if (pad_ == Pad::kBorder)
        v = std::fmin(std::fmax(v, 0.0), len - 1);
      else if (pad_ == Pad::kReflection)
        v = reflect(v, lo, hi);
    }
    return v;
  }

  // An input index after the padding rule; -1 when the tap reads a zero.
  int64_t source_index(int64_t i, int64_t len, double lo, double hi) const {
    if (i >= 0 && i < len) return i;
    if (pad_ == Pad::kZeros) return -1;
    i = pad_ == Pad::kBorder ? (i < 0 ? 0 : len - 1) : int64_t(reflect(double(i), lo, hi));
    return std::clamp<int64_t>(i, 0, len - 1);
  }

  // Float 4-D input, linear or nearest mode. The taps of an output position
  // (the plane offsets it reads and their weights) are the same for every
  // channel, so they are found once per position and then applied to each
  // channel plane; the per-element path would redo them per channel.
  void sample_planes_2d(ep::KernelContext& ctx, const Tensor& x, const Tensor& grid, int64_t H,
                        int64_t W, int64_t out_size, Tensor& y) const {
    struct Taps {
      int64_t off[4];
      double w[4];
      int count;
    };
    const int64_t N = x.shape()[0], C = x.shape()[1];
    const double lo = align_ ? 0.0 : -0.5;
    const double hi_y = align_ ? double(H - 1) : double(H) - 0.5;
    const double hi_x = align_ ? double(W - 1) : double(W) - 0.5;
    std::vector<Taps> taps(size_t(N * out_size));
    const float* g = grid.data<float>();
    ctx.thread_pool().parallel_for(N * out_size, 40.0, [&](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p) {
        Taps& t = taps[size_t(p)];
        t.count = 0;
        const double py = source_coord(g[2 * p + 1], H, lo, hi_y);
        const double px = source_coord(g[2 * p], W, lo, hi_x);
        if (!std::isfinite(py) || !std::isfinite(px) || std::fabs(py) > 1e15 ||
            std::fabs(px) > 1e15)
          continue;  // NaN or huge grid value: the output is zero
        auto add = [&](int64_t iy, int64_t ix, double w) {
          if (w == 0) return;
          const int64_t sy = source_index(iy, H, lo, hi_y), sx = source_index(ix, W, lo, hi_x);
          if (sy < 0 || sx < 0) return;
          t.off[t.count] = sy * W + sx;
          t.w[t.count++] = w;
        };
        if (mode_ == Mode::kNearest) {
          add(int64_t(py), int64_t(px), 1.0);
          continue;
        }
        const double fy = std::floor(py), fx = std::floor(px);
        const int64_t y0 = int64_t(fy), x0 = int64_t(fx);
        const double wy1 = py - fy, wy0 = fy + 1 - py, wx1 = px - fx, wx0 = fx + 1 - px;
        add(y0, x0, wy0 * wx0);
        add(y0, x0 + 1, wy0 * wx1);
        add(y0 + 1, x0, wy1 * wx0);
        add(y0 + 1, x0 + 1, wy1 * wx1);
      }
    });
    const float* xd = x.data<float>();
    float* yd = y.mutable_data<float>();
    ctx.thread_pool().parallel_for(N * C, double(out_size * 8), [&](int64_t b, int64_t e) {
      for (int64_t nc = b; nc < e; ++nc) {
        const float* img = xd + nc * H * W;
        const Taps* tp = taps.data() + (nc / C) * out_size;
        float* out = yd + nc * out_size;
        for (int64_t o = 0; o < out_size; ++o) {
          double sum = 0;
          for (int k = 0; k < tp[o].count; ++k) sum += tp[o].w[k] * double(img[tp[o].off[k]]);
          out[o] = float(sum);
        }
      }
    });
  }

  double pixel(const double* img, const std::vector<int64_t>& in, const std::vector<double>& lo,
               const std::vector<double>& hi, const int64_t* idx) const {
    int64_t off = 0;
    for (size_t d = 0; d < in.size(); ++d) {
      int64_t i = idx[d];
      if (in[d] <= 0) return 0.0;
      if (i < 0 || i >= in[d]) {
        if (pad_ == Pad::kZeros) return 0.0;
        if (pad_ == Pad::kBorder)
          i = i < 0 ? 0 : in[d] - 1;
        else
          i = int64_t(reflect(double(i), lo[d], hi[d]));
        if (i < 0) i = 0;
        if (i >= in[d]) i = in[d] - 1;
      }
      off = off * in[d] + i;
    }
    return img[off];
  }

  double interpolate(const double* img, const std::vector<int64_t>& in,
                     const std::vector<double>& lo, const std::vector<double>& hi,
                     const std::vector<double>& pos) const {
    const size_t r = in.size();
    std::vector<int64_t> idx(r);
    for (double p : pos)
      if (!std::isfinite(p) || std::fabs(p) > 1e15) return 0.0;  // NaN/huge grid: nothing to read
    if (mode_ == Mode::kNearest) {
      for (size_t d = 0; d < r; ++d) idx[d] = int64_t(pos[d]);
      return pixel(img, in, lo, hi, idx.data());
    }
    const int taps = mode_ == Mode::kLinear ? 2 : 4;
    std::vector<int64_t> base(r);
    std::vector<double> w(r * 4);
    for (size_t d = 0; d < r; ++d) {
      double f = std::floor(pos[d]);
      if (taps == 2) {
        base[d] = int64_t(f);
        w[d * 4] = f + 1 - pos[d];
        w[d * 4 + 1] = pos[d] - f;
      } else {
        base[d] = int64_t(f) - 1;
        cubic_coeffs(pos[d] - f, &w[d * 4]);
      }
    }
    int64_t corners = 1;
    for (size_t d = 0; d < r; ++d) corners *= taps;
    double sum = 0;
    for (int64_t k = 0; k < corners; ++k) {
      double wt = 1;
      for (int64_t rem = k, d = int64_t(r) - 1; d >= 0; --d, rem /= taps) {
        int t = int(rem % taps);
        idx[size_t(d)] = base[size_t(d)] + t;
        wt *= w[size_t(d) * 4 + size_t(t)];
      }
      if (wt != 0) sum += wt * pixel(img, in, lo, hi, idx.data());
    }
    return sum;
  }

  bool align_;
  int64_t opset_;
  Mode mode_ = Mode::kLinear;
  Pad pad_ = Pad::kZeros;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_grid_sample(const ep::KernelInfo& info) {
  return std::make_unique<GridSampleKernel>(info);
}

}  // namespace tessera::cpu
