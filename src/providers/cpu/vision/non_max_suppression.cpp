// NonMaxSuppression (opsets 10, 11): greedy per (batch, class) selection by
// descending score, suppressing boxes whose IoU with a kept box exceeds the threshold.
#include <algorithm>
#include <utility>
#include <vector>

#include "linalg/box_overlap.hpp"
#include "providers/cpu/vision/vision_kernels.hpp"

namespace tessera::cpu {

namespace {

struct Box {
  float y1, x1, y2, x2;
};

float box_area(const Box& b) { return (b.x2 - b.x1) * (b.y2 - b.y1); }

// The boxes kept so far for one (batch, class), as columns, so the test of a
// candidate against all of them is one vectorisable loop.
struct KeptBoxes {
  std::vector<float> y1, x1, y2, x2, area;
  size_t size() const { return y1.size(); }
  void push(const Box& b) {
    y1.push_back(b.y1);
    x1.push_back(b.x1);
    y2.push_back(b.y2);
    x2.push_back(b.x2);
    area.push_back(box_area(b));
  }
  void clear() {
    for (auto* v : {&y1, &x1, &y2, &x2, &area}) v->clear();
  }
};

// Whether IoU(kept box, b) > th for any kept box (IoU 0 where the boxes do
// not overlap or the union is not positive, else intersection / union): a
// vectorised test of all kept boxes (a scan one box at a time over
// thousands of kept boxes was ssdlite320's whole NonMaxSuppression time).
bool overlaps_any(const KeptBoxes& k, const Box& b, float th) {
  const float corners[4] = {b.y1, b.x1, b.y2, b.x2};
  return linalg::any_iou_above({k.y1.data(), k.x1.data(), k.y2.data(), k.x2.data(), k.area.data()},
                               int64_t(k.size()), corners, box_area(b), th);
}

class NonMaxSuppressionKernel : public ep::OpKernel {
 public:
  explicit NonMaxSuppressionKernel(const ep::KernelInfo& info)
      : center_(info.attr_int("center_point_box", 0)) {
    if (center_ != 0 && center_ != 1)
      info.fail_node("center_point_box must be 0 or 1, got ", center_);
  }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& boxes = ctx.required_input(0);
    const Tensor& scores = ctx.required_input(1);
    if (boxes.rank() != 3 || boxes.shape()[2] != 4)
      ctx.fail_node("boxes must be [num_batches, spatial_dimension, 4], got ",
                    boxes.shape().to_string());
    if (scores.rank() != 3 || scores.shape()[0] != boxes.shape()[0] ||
        scores.shape()[2] != boxes.shape()[1])
      ctx.fail_node("scores must be [num_batches, num_classes, spatial_dimension] matching boxes ",
                    boxes.shape().to_string(), ", got ", scores.shape().to_string());
    int64_t max_out = 0;
    if (const Tensor* t = ctx.input(2); t && t->num_elements() > 0)
      max_out = t->element_as_int64(0);
    float iou_th = 0.f;
    if (const Tensor* t = ctx.input(3); t && t->num_elements() > 0)
      iou_th = float(t->element_as_double(0));
    const Tensor* st = ctx.input(4);
    const bool has_score_th = st && st->num_elements() > 0;
    const float score_th = has_score_th ? float(st->element_as_double(0)) : 0.f;
    const int64_t B = boxes.shape()[0], S = boxes.shape()[1], C = scores.shape()[1];
    const float* bd = boxes.data<float>();
    const float* sd = scores.data<float>();
    // Boxes in corner form, per batch.
    std::vector<Box> bx(static_cast<size_t>(max_out > 0 ? B * S : 0));
    for (int64_t i = 0; i < int64_t(bx.size()); ++i) {
      const float* p = bd + i * 4;
      Box& o = bx[size_t(i)];
      if (center_ == 1) {
        o = {p[1] - p[3] / 2, p[0] - p[2] / 2, p[1] + p[3] / 2, p[0] + p[2] / 2};
      } else {  // any diagonal pair of corners
        o = {std::min(p[0], p[2]), std::min(p[1], p[3]), std::max(p[0], p[2]),
             std::max(p[1], p[3])};
      }
    }
    // Each (batch, class) is independent: they run in parallel, each into
    // its own list, and the lists are joined in (batch, class) order.
    const int64_t pairs = max_out > 0 ? B * C : 0;
    std::vector<std::vector<int64_t>> picked(static_cast<size_t>(pairs));
    auto run = [&](int64_t begin, int64_t end) {
      KeptBoxes kept;
      std::vector<std::pair<float, int64_t>> order;
      for (int64_t bc = begin; bc < end; ++bc) {
        const int64_t b = bc / C, c = bc % C;
        const float* sc = sd + bc * S;
        const Box* boxes_b = bx.data() + b * S;
        order.clear();
        for (int64_t s = 0; s < S; ++s)
          if (!has_score_th || sc[s] >= score_th) order.emplace_back(sc[s], s);
        // Descending score, ties by ascending index: the order a stable sort
        // by score gives, as one contiguous sort of (score, index) pairs.
        std::sort(order.begin(), order.end(), [](const auto& x, const auto& y) {
          return x.first > y.first || (x.first == y.first && x.second < y.second);
        });
        kept.clear();
        std::vector<int64_t>& out = picked[size_t(bc)];
        for (const auto& candidate : order) {
          const int64_t s = candidate.second;
          if (int64_t(kept.size()) >= max_out) break;
          if (overlaps_any(kept, boxes_b[s], iou_th)) continue;
          kept.push(boxes_b[s]);
          out.insert(out.end(), {b, c, s});
        }
      }
    };
    ctx.thread_pool().parallel_for(pairs, double(8 * S), run);
    size_t total = 0;
    for (const auto& p : picked) total += p.size();
    Tensor& y = ctx.output(0, Shape{int64_t(total / 3), 3}, DataType::kInt64);
    int64_t* yd = y.mutable_data<int64_t>();
    for (const auto& p : picked) yd = std::copy(p.begin(), p.end(), yd);
  }

 private:
  int64_t center_;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_non_max_suppression(const ep::KernelInfo& info) {
  return std::make_unique<NonMaxSuppressionKernel>(info);
}

}  // namespace tessera::cpu
