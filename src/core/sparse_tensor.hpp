// A sparse tensor: a dense shape, the values that are not zero (or not the
// type's default), and where they sit, in one of ONNX Runtime's three
// formats. Values and indices are ordinary tensors, so they can wrap user
// memory without a copy.
#pragma once
#include <string>

#include "core/tensor.hpp"

namespace tessera {

// The numbers are ONNX Runtime's OrtSparseFormat values.
enum class SparseFormat : int { kUndefined = 0, kCoo = 1, kCsr = 2, kBlockSparse = 4 };
const char* sparse_format_name(SparseFormat f);

struct SparseTensor {
  SparseFormat format = SparseFormat::kUndefined;
  Shape dense_shape;
  // COO and CSR: [nnz]. Block sparse: [num_blocks, block_rows, block_cols].
  Tensor values;
  // COO: int64 [nnz] (positions in the flattened dense tensor) or [nnz, rank]
  // (coordinates). CSR: int64 [nnz], the column of each value. Block sparse:
  // int32 [2, num_blocks], each block's row and column in block units.
  Tensor indices;
  // CSR only: int64 [rows + 1], where each row's values start.
  Tensor outer;

  DataType dtype() const { return values.dtype(); }
  // Throws (naming `who`) unless the indices fit the dense shape and the
  // values; called before any densification reads them.
  void validate(const std::string& who) const;
  // The dense tensor: every element the indices do not name is zero (empty
  // for strings).
  Tensor to_dense(const std::string& who) const;
  // COO form of a host tensor: its non-zero elements (non-empty for strings)
  // with their flattened positions.
  static SparseTensor coo_from_dense(const Tensor& dense);
};

// Copies element `from` of src to element `to` of dst (same type; strings and
// sub-byte types included).
void copy_tensor_element(const Tensor& src, int64_t from, Tensor& dst, int64_t to);

}  // namespace tessera
