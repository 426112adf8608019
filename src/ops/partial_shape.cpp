// Lifting a full-shape rule to partial shapes by probing.
//
// Every unknown dim belongs to a class: the dims of one symbol share a
// class, and each dim without a symbol has its own. The rule runs over full
// shapes in which each class takes one value, in three probes:
//   - two with large primes, different per class and per probe, so a dim
//     that a rule passes through stays recognisable, and sums, products and
//     quotients of them are neither a prime of the table nor equal across
//     the probes;
//   - one with every class at 1, so that what a rule clamps (Slice's ends,
//     a window larger than its input) or treats specially at 1 (broadcasting,
//     Squeeze without axes) differs from the large probes. Where the rule
//     rejects 1 (a window wider than its input), a size the input cannot
//     have, the smallest distinct primes from 2, 11 or 101 it accepts take
//     its place: a clamp below them cannot apply to an input that large.
// An output dim is the number c when every probe gives c, class j's dim when
// every probe gives class j's value, and unknown otherwise. A rule that
// rejects a large probe (two different symbols broadcast together) leaves
// every output unknown.
#include "ops/partial_shape.hpp"

#include "core/error.hpp"
#include "ops/schema.hpp"

namespace tessera::ops {

std::optional<Shape> full_shape(const PartialShape& p) {
  std::vector<int64_t> d;
  d.reserve(p.size());
  for (const auto& dim : p) {
    if (!dim.value || *dim.value < 0) return std::nullopt;
    d.push_back(*dim.value);
  }
  return Shape(std::move(d));
}

PartialShape to_partial(const Shape& s) {
  PartialShape p;
  p.reserve(s.rank());
  for (int64_t v : s.dims()) p.push_back(ir::Dim{v, ""});
  return p;
}

std::string partial_to_string(const PartialShape& p) {
  std::string s = "[";
  for (size_t i = 0; i < p.size(); ++i) {
    if (i) s += ",";
    s += p[i].to_string();
  }
  return s + "]";
}

namespace {

// A query over the full shapes of one probe; the integer inputs are the
// constants whatever the probe.
class ProbeQuery : public ShapeQuery {
 public:
  ProbeQuery(const ir::Node& n, int64_t opset, const OpSchema& s,
             const std::vector<std::optional<Shape>>& shapes, const IntsOf& ints)
      : ShapeQuery(n, opset, s), shapes_(shapes), ints_(ints) {}
  const Shape* shape(size_t i) const override {
    return i < shapes_.size() && shapes_[i] ? &*shapes_[i] : nullptr;
  }
  std::optional<std::vector<int64_t>> ints(size_t i) const override {
    return has_input(i) ? ints_(i) : std::nullopt;
  }

 private:
  const std::vector<std::optional<Shape>>& shapes_;
  const IntsOf& ints_;
};

bool is_prime(int64_t v) {
  for (int64_t d = 2; d * d <= v; ++d)
    if (v % d == 0) return false;
  return v > 1;
}

// `count` primes from `from` up.
std::vector<int64_t> primes_from(int64_t from, size_t count) {
  std::vector<int64_t> out;
  for (int64_t v = from; out.size() < count; ++v)
    if (is_prime(v)) out.push_back(v);
  return out;
}

struct Classes {
  std::vector<std::string> symbol;  // per class; empty for a dim without one
  // Per input (empty when unknown or absent), per dim: its class, or -1.
  std::vector<std::vector<int>> of;
};

Classes classify(const std::vector<const PartialShape*>& inputs) {
  Classes c;
  for (const PartialShape* p : inputs) {
    std::vector<int> cls;
    if (p)
      for (const auto& dim : *p) {
        if (dim.value && *dim.value >= 0) {
          cls.push_back(-1);
          continue;
        }
        int k = -1;
        if (!dim.symbol.empty())
          for (size_t j = 0; j < c.symbol.size(); ++j)
            if (c.symbol[j] == dim.symbol) k = int(j);
        if (k < 0) {
          k = int(c.symbol.size());
          c.symbol.push_back(dim.symbol);
        }
        cls.push_back(k);
      }
    c.of.push_back(std::move(cls));
  }
  return c;
}

std::vector<std::optional<Shape>> probe_shapes(const std::vector<const PartialShape*>& inputs,
                                               const Classes& c,
                                               const std::vector<int64_t>& value) {
  std::vector<std::optional<Shape>> out;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i]) {
      out.emplace_back();
      continue;
    }
    std::vector<int64_t> d;
    for (size_t k = 0; k < inputs[i]->size(); ++k)
      d.push_back(c.of[i][k] < 0 ? *(*inputs[i])[k].value : value[size_t(c.of[i][k])]);
    out.emplace_back(Shape(std::move(d)));
  }
  return out;
}

}  // namespace

PartialOutShapes partial_output_shapes(const OpSchema& schema, const ir::Node& node, int64_t opset,
                                       const std::vector<const PartialShape*>& inputs,
                                       const IntsOf& ints) {
  if (!schema.shape_rule) return {};
  const Classes c = classify(inputs);
  auto run = [&](const std::vector<int64_t>& value) {
    const auto shapes = probe_shapes(inputs, c, value);
    return schema.shape_rule(ProbeQuery(node, opset, schema, shapes, ints));
  };
  PartialOutShapes result;
  if (c.symbol.empty()) {  // full shapes: the rule's own answer
    for (auto& s : run({}))
      result.push_back(s ? std::optional<PartialShape>(to_partial(*s)) : std::nullopt);
    return result;
  }
  const size_t n = c.symbol.size();
  std::vector<std::vector<int64_t>> values = {primes_from(1009, n), primes_from(3001, n),
                                              std::vector<int64_t>(n, 1)};
  std::vector<OutShapes> outs;
  for (size_t p = 0; p < 2; ++p) {
    try {
      outs.push_back(run(values[p]));
    } catch (const Error&) {
      return {};
    }
  }
  // The small probe: the smallest of these sizes the rule accepts.
  for (int64_t from : {int64_t(1), int64_t(2), int64_t(11), int64_t(101)}) {
    values[2] = from == 1 ? std::vector<int64_t>(n, 1) : primes_from(from, n);
    try {
      outs.push_back(run(values[2]));
      break;
    } catch (const Error&) {
      if (from == 101) return {};
    }
  }
  size_t count = outs[0].size();
  for (const auto& o : outs) count = std::min(count, o.size());
  for (size_t k = 0; k < count; ++k) {
    bool known = true;
    for (const auto& o : outs) known = known && o[k] && o[k]->rank() == outs[0][k]->rank();
    if (!known) {
      result.emplace_back();
      continue;
    }
    PartialShape out;
    for (size_t d = 0; d < outs[0][k]->rank(); ++d) {
      bool same = true;
      for (const auto& o : outs) same = same && (*o[k])[d] == (*outs[0][k])[d];
      if (same) {
        out.push_back(ir::Dim{(*outs[0][k])[d], ""});
        continue;
      }
      ir::Dim dim;
      for (size_t j = 0; j < n; ++j) {
        bool follows = true;
        for (size_t p = 0; p < outs.size(); ++p)
          follows = follows && (*outs[p][k])[d] == values[p][j];
        if (follows) dim.symbol = c.symbol[j];
      }
      out.push_back(dim);
    }
    result.emplace_back(std::move(out));
  }
  return result;
}

}  // namespace tessera::ops
