// The recurrent ops' device code (rnn.cu), in plain types. A run of RNN, GRU
// or LSTM is, per time step, one product of the state with R^T for both
// directions (cuBLASLt, cuda_rnn.cpp) and one launch of a step kernel here
// that adds the step's input projection and biases, applies the gates'
// activations, updates the state in place and writes Y. The state and all
// arithmetic are float for every element type.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "providers/cuda/cuda_launch.hpp"

namespace tessera::cuda {

// One activation: `kind` numbers the spec's functions in the order of
// ops::rnn::ActKind (Relu, Tanh, Sigmoid, Affine, LeakyRelu, ThresholdedRelu,
// ScaledTanh, HardSigmoid, Elu, Softsign, Softplus).
struct RnnActivation {
  int kind = 1;
  float alpha = 0, beta = 0;
};

// What one step kernel computes:
// - kRnn: h = f(x + Wb + Rb + hR);
// - kGruLinear: GRU with linear_before_reset, all three gates from one product;
// - kGruGates, kGruHidden: GRU without it, in two launches around the
//   product of r (.) h with Rh^T: the first makes z, r and r (.) h, the
//   second the hidden gate and the new state;
// - kLstm: gates i, o, f, c with peepholes, input_forget and the cell state.
enum class RnnCell : int { kRnn, kGruLinear, kGruGates, kGruHidden, kLstm };

struct RnnStep {
  RnnCell cell = RnnCell::kRnn;
  ElemType type = ElemType::kF32;  // Y's element type
  int64_t seq = 0, batch = 0, hidden = 0, dirs = 1, gates = 1;
  int layout = 0;
  int64_t step = 0;      // 0 .. seq - 1; direction d reads time step t of each row
  bool reverse = false;  // a one-direction op running in reverse
  // X * W^T of every step and direction: row t * batch + b (layout 0) or
  // b * seq + t (layout 1), column (d * gates + gate) * hidden + j.
  const float* xw = nullptr;
  const float* bias = nullptr;  // B as float, [dirs, 2 * gates * hidden], or null
  // This step's recurrent product, [dirs, batch, width]: width gates * hidden,
  // 2 * hidden for kGruGates and hidden for kGruHidden.
  const float* hr = nullptr;
  float* zr = nullptr;            // GRU's activated z and r, [dirs, batch, 2 * hidden]
  float* rh = nullptr;            // GRU's r (.) h, [dirs, batch, hidden]
  const float* peep = nullptr;    // LSTM's P [dirs, 3 * hidden] (i, o, f), or null
  const int32_t* lens = nullptr;  // sequence_lens [batch], or null (every row full)
  float* h = nullptr;             // [dirs, batch, hidden], updated in place
  float* c = nullptr;             // LSTM's cell state, the same
  void* y = nullptr;              // Y in `type` and the layout, or null
  bool has_clip = false;
  float clip = 0;
  bool input_forget = false;
  RnnActivation act[6];  // direction d's functions (f, g, h) at 3 * d
};

// One step for every direction, batch row and hidden unit. A row whose
// sequence has ended keeps its state and, where Y is wanted, gets zeros at
// time index `step` (each padded position is written exactly once).
cudaError_t launch_rnn_step(const RnnStep& s, cudaStream_t stream);

// dst[i] = float(src[i]) for i < n.
cudaError_t launch_rnn_to_float(ElemType t, const void* src, float* dst, int64_t n,
                                cudaStream_t stream);
// A [dirs, batch, hidden] float state from initial_h / initial_c in the layout
// ([dirs, batch, hidden] or [batch, dirs, hidden]), zeros when src is null.
cudaError_t launch_rnn_load_state(ElemType t, const void* src, float* state, int64_t dirs,
                                  int64_t batch, int64_t hidden, int layout, cudaStream_t stream);
// The state written as Y_h / Y_c in `t` and the layout.
cudaError_t launch_rnn_store_state(ElemType t, const float* state, void* dst, int64_t dirs,
                                   int64_t batch, int64_t hidden, int layout, cudaStream_t stream);

// The first sequence_lens entry outside [0, seq]: `index` is -1 when none is.
struct RnnLensError {
  int32_t index;
  int32_t value;
};
// Checks sequence_lens on the device into `error` (set to {-1, 0} first).
cudaError_t launch_rnn_check_lens(const int32_t* lens, int64_t batch, int64_t seq,
                                  RnnLensError* error, cudaStream_t stream);

}  // namespace tessera::cuda
