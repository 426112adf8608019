// The widest x86 vector instruction set the CPU kernels may use, read once
// per process. Every kernel family (SGEMM, vector math, blocked convolution,
// pooling, epilogues) asks here, so one setting moves them all together.
#pragma once

// For kernel bodies compiled once per ISA whose plain row loops (fills,
// copies of short rows) must stay inline loops: GCC would otherwise turn them
// into memset/memcpy calls, each costing more than a short row.
#define TESSERA_NO_LIBCALLS optimize("no-tree-loop-distribute-patterns")

namespace tessera::linalg {

// From narrowest to widest. AVX2 counts only together with FMA.
enum class Isa { kPortable, kAvx2, kAvx512 };

// What the CPU supports, capped by the environment variable TESSERA_CPU_ISA
// ("avx512", "avx2" or "portable") when it is set: a machine with AVX-512
// can then run, and measure, the kernels an AVX2-only machine would. An
// unknown value is reported once on stderr and ignored.
Isa cpu_isa();

// What the CPU itself supports, ignoring TESSERA_CPU_ISA.
Isa cpu_isa_supported();

// "avx512", "avx2" or "portable".
const char* isa_name(Isa isa);

}  // namespace tessera::linalg
