// Signal kernels: the per-file registration hooks register_signal.cpp calls.
#pragma once
#include "ep/kernel_registry.hpp"

namespace tessera::cpu::signal {

void register_dft(ep::KernelRegistry& r);      // DFT
void register_stft(ep::KernelRegistry& r);     // STFT
void register_windows(ep::KernelRegistry& r);  // Hann/Hamming/BlackmanWindow, MelWeightMatrix

}  // namespace tessera::cpu::signal
