// 2-D max and sum pooling of one plane, vectorised along output rows (generic,
// AVX2 and AVX-512 builds, picked at run time by cpu_isa()). Padding never wins: a window with
// no input pixel yields the lowest float, as the generic MaxPool kernel does.
#pragma once
#include "linalg/cpu_isa.hpp"
#include "linalg/depthwise.hpp"

namespace tessera::linalg {

// y[OH, OW] = max over the in-bounds taps of each window (geometry as for the
// depthwise convolution).
void max_pool2d_plane(const float* x, const DepthwiseGeometry& g, float* y);
// The same on 8-bit planes (quantized CNNs' pools; the border is the type's
// lowest value).
void max_pool2d_plane(const uint8_t* x, const DepthwiseGeometry& g, uint8_t* y);
void max_pool2d_plane(const int8_t* x, const DepthwiseGeometry& g, int8_t* y);
// y[OH, OW] = sum over the in-bounds taps of each window, added in the
// window's row-major order (as the generic AveragePool kernel adds them, so
// the sums agree bit for bit); the caller divides.
void sum_pool2d_plane(const float* x, const DepthwiseGeometry& g, float* y);

// The same with the kernels of one instruction set (capped at what the CPU
// supports), so that tests check every set a machine can run.
void max_pool2d_plane(const float* x, const DepthwiseGeometry& g, float* y, Isa isa);
void max_pool2d_plane(const uint8_t* x, const DepthwiseGeometry& g, uint8_t* y, Isa isa);
void max_pool2d_plane(const int8_t* x, const DepthwiseGeometry& g, int8_t* y, Isa isa);
void sum_pool2d_plane(const float* x, const DepthwiseGeometry& g, float* y, Isa isa);

}  // namespace tessera::linalg
