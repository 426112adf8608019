// The rotation of rotary position embeddings, shared by RotaryEmbedding and
// GroupQueryAttention's do_rotary.
#pragma once
#include <cstdint>

namespace tessera::cpu {

// Rotates the first 2 * half features of one head in place by the angles
// whose cosines and sines are c[0, half) and s[0, half): the pairs (i, i +
// half), or (2i, 2i + 1) when interleaved.
inline void rotate_head(float* v, int64_t half, const float* c, const float* s, bool interleaved) {
  for (int64_t i = 0; i < half; ++i) {
    float* a = interleaved ? v + 2 * i : v + i;
    float* b = interleaved ? v + 2 * i + 1 : v + i + half;
    const float x1 = *a, x2 = *b;
    *a = c[i] * x1 - s[i] * x2;
    *b = s[i] * x1 + c[i] * x2;
  }
}

}  // namespace tessera::cpu
