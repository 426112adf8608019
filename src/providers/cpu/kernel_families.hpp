// One registration function per kernel family; each lives in its family's folder.
#pragma once
#include "ep/kernel_registry.hpp"

namespace tessera::cpu {

void register_math_kernels(ep::KernelRegistry& r);          // math/: element-wise, Gemm-free math
void register_nn_kernels(ep::KernelRegistry& r);            // nn/: conv, pool, norm, gemm, matmul
void register_tensor_kernels(ep::KernelRegistry& r);        // tensor/: shape and data movement
void register_reduce_kernels(ep::KernelRegistry& r);        // reduce/: reductions, arg min/max
void register_control_flow_kernels(ep::KernelRegistry& r);  // control_flow/: If, Loop, Scan
void register_sequence_kernels(ep::KernelRegistry& r);  // sequence/: sequences and optionals
void register_string_kernels(ep::KernelRegistry& r);  // string/: string ops
void register_random_kernels(ep::KernelRegistry& r);  // random/: random generators honoring seeds
void register_signal_kernels(ep::KernelRegistry& r);  // signal/: DFT, STFT, windows, mel
void register_quant_kernels(ep::KernelRegistry& r);  // quant/: quantization
void register_vision_kernels(ep::KernelRegistry& r);  // vision/: detection and image ops
void register_transformer_kernels(ep::KernelRegistry& r);  // transformer/: Einsum, Attention, RotaryEmbedding
void register_training_kernels(ep::KernelRegistry& r);  // training/: ai.onnx.preview.training
void register_ml_kernels(ep::KernelRegistry& r);  // ml/: ai.onnx.ml
void register_recurrent_kernels(ep::KernelRegistry& r);  // recurrent/: RNN, GRU, LSTM, LinearAttention, CausalConvWithState
void register_loss_kernels(ep::KernelRegistry& r);  // loss/: NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss
void register_text_kernels(ep::KernelRegistry& r);  // text/: TfIdfVectorizer
void register_extras_kernels(ep::KernelRegistry& r);  // extras/: recent single ops: BitCast, SwiGLU, DeformConv
void register_preview_kernels(ep::KernelRegistry& r);  // preview/: ai.onnx.preview (FlexAttention)
void register_image_kernels(ep::KernelRegistry& r);  // image/: ImageDecoder
void register_fused_kernels(ep::KernelRegistry& r);  // fused/: com.tessera ops the optimizer creates

}  // namespace tessera::cpu
