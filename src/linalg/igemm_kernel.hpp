// The inner loops of igemm (igemm.hpp): one register tile of the raw
// product A'B' over a packed B panel, for the driver in igemm.cpp.
#pragma once
#include <cstdint>

namespace tessera::linalg::detail {

constexpr int kIgemmRows = 6;  // rows of A a tile

// out[r * 64 + j] = sum over g < groups, i < 4 of a[r * lda + 4g + i] *
// panel[(g * 64 + j) * 4 + i], for r < rows (1 to kIgemmRows) and j < 64.
// a's rows hold groups * 4 bytes (uint8); the panel is PackedBInt8's (int8).
using IgemmTile = void (*)(int64_t groups, const uint8_t* a, int64_t lda, int rows,
                           const int8_t* panel, int32_t* out);

void igemm_tile_portable(int64_t groups, const uint8_t* a, int64_t lda, int rows,
                         const int8_t* panel, int32_t* out);
// AVX-512 VNNI (vpdpbusd); only where the CPU has it.
void igemm_tile_vnni512(int64_t groups, const uint8_t* a, int64_t lda, int rows,
                        const int8_t* panel, int32_t* out);
// Whether this build has the VNNI tile and the CPU runs it.
bool igemm_vnni512_available();

}  // namespace tessera::linalg::detail
