// The spec's function bodies for function-bodied ONNX ops, as an in-tree
// table keyed by (domain, op, since_version). A node that no provider has a
// kernel for is expanded into its body before partitioning, so a new op of
// that kind runs without new kernel code.
//
// `since`/`until` are the model opsets a body is valid for. They start at the
// op's version, or later where the body needs a newer op than the function
// itself (CastLike is opset 15; ReduceMean takes axes as an input from 18):
// body nodes run at the model's opset, so a body may only use ops whose
// meaning is the same across its whole range.
#pragma once
#include <span>
#include <string>
#include <vector>

#include "ir/graph.hpp"

namespace tessera::ops {

struct FunctionBody {
  std::string domain;  // "" for ai.onnx
  std::string op_type;
  int64_t since = 1;
  int64_t until = 0;  // inclusive
  // A body that serves one value of a string attribute (Gelu's approximate):
  // applies when the call's `when_attr` equals `when_value` (or, when the call
  // leaves it out, when `when_value` is the attribute's default).
  std::string when_attr, when_value;
  bool when_default = false;
  ir::Function function;  // parsed from the table's text

  std::string describe() const;  // "Gelu-20 (approximate=tanh)"
};

// A table row: the body as function text (ops/function_text.hpp).
struct FunctionRow {
  const char* domain;
  const char* op;
  int64_t since, until;
  const char* when_attr;  // "" for an unconditional body
  const char* when_value;
  bool when_default;
  const char* text;
};

// Parses a table; throws kInvalidGraph naming the row whose text is wrong.
std::vector<FunctionBody> parse_function_rows(std::span<const FunctionRow> rows);

// The first body in `bodies` for `node` at `opset` (domain, op, opset range
// and the when_attr condition: a string attribute's value, or an int
// attribute's decimal text), or null.
const FunctionBody* find_body_in(const std::vector<FunctionBody>& bodies, const ir::Node& node,
                                 int64_t opset);

// Every body in the table (parsed once, on first use).
const std::vector<FunctionBody>& function_bodies();

// The body for `node` at `opset`, or null when the table has none.
const FunctionBody* find_function_body(const ir::Node& node, int64_t opset);

}  // namespace tessera::ops
