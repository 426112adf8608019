// Vectorised reductions of contiguous float runs for the Reduce and global
// pooling kernels (portable and AVX2 builds, picked at run time).
#pragma once
#include <cstdint>

namespace tessera::linalg {

// Folds x[0, n) into eight lane accumulators the way the generic ReduceMax
// and ReduceMin loops do: x[j + q] goes to lane q for each whole block of
// eight, the tail to lane 0; a lane takes x when x is greater (less) or NaN.
// The blocks are folded in four interleaved chains merged at the end, so
// the result is the generic loop's except, among values that compare equal
// (+0 and -0) or NaNs, which one is kept.
void max_lanes(const float* x, int64_t n, float acc[8]);
void min_lanes(const float* x, int64_t n, float acc[8]);

// out[r] = the maximum (max) or minimum of row r of `rows` contiguous rows
// of n values: max_lanes/min_lanes from -inf/+inf, the eight lanes then
// folded in order by the same rule (so NaN when the row has one).
void extreme_rows(bool max, const float* x, int64_t rows, int64_t n, float* out);

// Writes to idx, in order, the positions j < n where x[j] >= t or is NaN
// (above) or where x[j] <= t; returns how many (idx holds room for n).
int64_t positions_reaching(bool above, const float* x, int64_t n, float t, int64_t* idx);

// The first (or, with `last`, the last) index i < n where x[i] == v, or
// where x[i] is NaN when v is; -1 when there is none.
int64_t find_value(const float* x, int64_t n, float v, bool last);

// One row of ArgMax (max) or ArgMin along a strided axis: where row[j]
// beats best[j] (greater or less, or NaN where best[j] is not), or with
// `last` ties it (equal, or both NaN), best[j] = row[j] and at[j] = k.
void arg_update(bool max, const float* row, int32_t k, bool last, float* best, int32_t* at,
                int64_t n);

// The sum of x[0, n), accumulated in vector lanes (a different rounding
// order from a sequential loop).
float sum_row(const float* x, int64_t n);

}  // namespace tessera::linalg
