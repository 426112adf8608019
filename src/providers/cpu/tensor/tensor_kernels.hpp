// The tensor family's registration, split by the file that holds each group
// of kernels; register_tensor_kernels() calls them all.
#pragma once
#include "ep/kernel_registry.hpp"

namespace tessera::cpu {

void register_transpose_kernels(ep::KernelRegistry& r);    // Transpose, DepthToSpace, SpaceToDepth
void register_concat_split_kernels(ep::KernelRegistry& r); // Concat, Split
void register_slice_kernels(ep::KernelRegistry& r);        // Slice
void register_gather_kernels(ep::KernelRegistry& r);       // Gather, GatherElements, GatherND
void register_scatter_kernels(ep::KernelRegistry& r);      // ScatterND, ScatterElements, Scatter
void register_expand_tile_kernels(ep::KernelRegistry& r);  // Expand, Tile
void register_pad_kernels(ep::KernelRegistry& r);          // Pad, CenterCropPad
void register_generator_kernels(ep::KernelRegistry& r);    // Constant, ConstantOfShape, Range, EyeLike, OneHot
void register_select_kernels(ep::KernelRegistry& r);       // NonZero, Compress, ReverseSequence, Trilu
void register_sort_kernels(ep::KernelRegistry& r);         // TopK, Unique
void register_resize_kernels(ep::KernelRegistry& r);       // Resize, Upsample

}  // namespace tessera::cpu
