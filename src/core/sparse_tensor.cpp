#include "core/sparse_tensor.hpp"

#include <cstring>

#include "core/error.hpp"

namespace tessera {

const char* sparse_format_name(SparseFormat f) {
  switch (f) {
    case SparseFormat::kCoo:
      return "COO";
    case SparseFormat::kCsr:
      return "CSR";
    case SparseFormat::kBlockSparse:
      return "block sparse";
    case SparseFormat::kUndefined:
      break;
  }
  return "undefined";
}

void copy_tensor_element(const Tensor& src, int64_t from, Tensor& dst, int64_t to) {
  const DataType dt = src.dtype();
  if (dt == DataType::kString) {
    dst.mutable_data<std::string>()[to] = src.data<std::string>()[from];
    return;
  }
  const int bits = data_type_bits(dt);
  auto* d = static_cast<uint8_t*>(dst.mutable_raw_data());
  const auto* s = static_cast<const uint8_t*>(src.raw_data());
  if (bits >= 8) {
    const size_t w = size_t(bits / 8);
    std::memcpy(d + size_t(to) * w, s + size_t(from) * w, w);
    return;
  }
  const uint64_t sb = uint64_t(from) * uint64_t(bits), db = uint64_t(to) * uint64_t(bits);
  const uint8_t mask = uint8_t((1u << bits) - 1);
  const uint8_t v = uint8_t((s[sb / 8] >> (sb % 8)) & mask);
  d[db / 8] = uint8_t((d[db / 8] & ~(mask << (db % 8))) | (v << (db % 8)));
}

namespace {

void check_host(const Tensor& t, const std::string& who, const char* what) {
  check(t.memory_info().host_accessible(), who, ": the ", what, " are in ",
        t.memory_info().to_string(), ", which the host cannot read");
}

void check_index_type(const Tensor& t, DataType want, const std::string& who, const char* what) {
  check(t.dtype() == want, who, ": ", what, " must be ", data_type_name(want), ", got ",
        t.description());
}

void validate_coo(const SparseTensor& s, int64_t nnz, const std::string& who) {
  const Tensor& ix = s.indices;
  check_index_type(ix, DataType::kInt64, who, "COO indices");
  check_host(ix, who, "indices");
  const int64_t rank = int64_t(s.dense_shape.rank());
  const int64_t total = s.dense_shape.num_elements();
  const bool linear = ix.rank() == 1;
  check(linear ? ix.shape()[0] == nnz
               : ix.rank() == 2 && ix.shape()[0] == nnz && ix.shape()[1] == rank,
        who, ": COO indices ", ix.description(), " do not match ", nnz, " values of a rank-", rank,
        " tensor (want [", nnz, "] or [", nnz, ",", rank, "])");
  const int64_t* p = ix.data<int64_t>();
  for (int64_t i = 0; i < nnz; ++i) {
    if (linear) {
      check(p[i] >= 0 && p[i] < total, who, ": COO index ", p[i], " (value ", i,
            ") is outside the ", total, " elements of ", s.dense_shape.to_string());
      continue;
    }
    for (int64_t j = 0; j < rank; ++j) {
      const int64_t v = p[i * rank + j], dim = s.dense_shape[size_t(j)];
      check(v >= 0 && v < dim, who, ": COO coordinate ", v, " of value ", i, " is outside dim ", j,
            " of size ", dim);
    }
  }
}

void validate_csr(const SparseTensor& s, int64_t nnz, const std::string& who) {
  check(s.dense_shape.rank() == 2, who, ": CSR needs a 2-D dense shape, got ",
        s.dense_shape.to_string());
  const int64_t rows = s.dense_shape[0], cols = s.dense_shape[1];
  if (nnz == 0 && !s.indices.defined() && !s.outer.defined()) return;
  check_index_type(s.indices, DataType::kInt64, who, "CSR inner indices");
  check_index_type(s.outer, DataType::kInt64, who, "CSR outer indices");
  check_host(s.indices, who, "inner indices");
  check_host(s.outer, who, "outer indices");
  check(s.indices.rank() == 1 && s.indices.shape()[0] == nnz, who, ": CSR inner indices ",
        s.indices.description(), " must have one entry per value (", nnz, ")");
  const int64_t* inner = s.indices.data<int64_t>();
  for (int64_t i = 0; i < nnz; ++i)
    check(inner[i] >= 0 && inner[i] < cols, who, ": CSR column ", inner[i], " (value ", i,
          ") is outside ", cols, " columns");
  if (nnz == 0 && s.outer.num_elements() == 0) return;
  check(s.outer.rank() == 1 && s.outer.shape()[0] == rows + 1, who, ": CSR outer indices ",
        s.outer.description(), " must have rows + 1 = ", rows + 1, " entries");
  const int64_t* outer = s.outer.data<int64_t>();
  check(outer[0] == 0 && outer[rows] == nnz, who, ": CSR outer indices must run from 0 to ", nnz,
        ", got ", outer[0], " .. ", outer[rows]);
  for (int64_t r = 0; r < rows; ++r)
    check(outer[r] <= outer[r + 1], who, ": CSR outer indices decrease at row ", r);
}

void validate_block(const SparseTensor& s, const std::string& who) {
  check(s.dense_shape.rank() == 2, who, ": block sparse needs a 2-D dense shape, got ",
        s.dense_shape.to_string());
  check(s.values.rank() == 3, who, ": block sparse values must be [blocks, rows, cols], got ",
        s.values.description());
  check_index_type(s.indices, DataType::kInt32, who, "block sparse indices");
  check_host(s.indices, who, "indices");
  const int64_t blocks = s.values.shape()[0];
  check(s.indices.rank() == 2 && s.indices.shape()[0] == 2 && s.indices.shape()[1] == blocks, who,
        ": block sparse indices ", s.indices.description(), " must be [2, ", blocks, "]");
  const int64_t bh = s.values.shape()[1], bw = s.values.shape()[2];
  const int32_t* ix = s.indices.data<int32_t>();
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t r = ix[b], c = ix[blocks + b];
    check(r >= 0 && c >= 0 && (r + 1) * bh <= s.dense_shape[0] && (c + 1) * bw <= s.dense_shape[1],
          who, ": block ", b, " at (", r, ", ", c, ") of ", bh, "x", bw, " lies outside ",
          s.dense_shape.to_string());
  }
}

}  // namespace

void SparseTensor::validate(const std::string& who) const {
  for (int64_t d : dense_shape.dims())
    check(d >= 0, who, ": dense shape ", dense_shape.to_string(), " has a negative dimension");
  check(values.defined(), who, ": a ", sparse_format_name(format), " sparse tensor has no values");
  check_host(values, who, "values");
  if (format == SparseFormat::kBlockSparse) return validate_block(*this, who);
  check(values.rank() == 1, who, ": values must be 1-D, got ", values.description());
  const int64_t nnz = values.num_elements();
  switch (format) {
    case SparseFormat::kCoo:
      if (nnz > 0 || indices.defined()) validate_coo(*this, nnz, who);
      return;
    case SparseFormat::kCsr:
      return validate_csr(*this, nnz, who);
    default:
      break;
  }
  check(nnz == 0, who, ": ", nnz, " values but no format (COO, CSR or block sparse) chosen");
}

Tensor SparseTensor::to_dense(const std::string& who) const {
  validate(who);
  Tensor dense(dtype(), dense_shape);
  if (dtype() != DataType::kString && dense.byte_size())
    std::memset(dense.mutable_raw_data(), 0, dense.byte_size());
  const int64_t nnz = format == SparseFormat::kBlockSparse ? 0 : values.num_elements();
  if (format == SparseFormat::kCoo && nnz > 0) {
    const int64_t* p = indices.data<int64_t>();
    const int64_t rank = int64_t(dense_shape.rank());
    for (int64_t i = 0; i < nnz; ++i) {
      int64_t pos = 0;
      if (indices.rank() == 1) {
        pos = p[i];
      } else {
        for (int64_t j = 0; j < rank; ++j) pos = pos * dense_shape[size_t(j)] + p[i * rank + j];
      }
      copy_tensor_element(values, i, dense, pos);
    }
  } else if (format == SparseFormat::kCsr && nnz > 0) {
    const int64_t* outer_p = outer.data<int64_t>();
    const int64_t* inner = indices.data<int64_t>();
    const int64_t cols = dense_shape[1];
    for (int64_t r = 0; r < dense_shape[0]; ++r)
      for (int64_t i = outer_p[r]; i < outer_p[r + 1]; ++i)
        copy_tensor_element(values, i, dense, r * cols + inner[i]);
  } else if (format == SparseFormat::kBlockSparse) {
    const int64_t blocks = values.shape()[0], bh = values.shape()[1], bw = values.shape()[2];
    const int32_t* ix = indices.data<int32_t>();
    const int64_t cols = dense_shape[1];
    for (int64_t b = 0; b < blocks; ++b)
      for (int64_t y = 0; y < bh; ++y)
        for (int64_t x = 0; x < bw; ++x)
          copy_tensor_element(values, (b * bh + y) * bw + x, dense,
                              (ix[b] * bh + y) * cols + ix[blocks + b] * bw + x);
  }
  return dense;
}

SparseTensor SparseTensor::coo_from_dense(const Tensor& dense) {
  check(dense.memory_info().host_accessible(), "a sparse tensor is made from host memory; got ",
        dense.memory_info().to_string());
  const int64_t n = dense.num_elements();
  std::vector<int64_t> where;
  if (dense.dtype() == DataType::kString) {
    const std::string* s = dense.data<std::string>();
    for (int64_t i = 0; i < n; ++i)
      if (!s[i].empty()) where.push_back(i);
  } else {
    for (int64_t i = 0; i < n; ++i)
      if (dense.element_as_double(i) != 0.0) where.push_back(i);
  }
  SparseTensor out;
  out.format = SparseFormat::kCoo;
  out.dense_shape = dense.shape();
  out.values = Tensor(dense.dtype(), Shape({int64_t(where.size())}));
  for (size_t i = 0; i < where.size(); ++i)
    copy_tensor_element(dense, where[i], out.values, int64_t(i));
  out.indices = Tensor::from_vector(where, Shape({int64_t(where.size())}));
  return out;
}

}  // namespace tessera
