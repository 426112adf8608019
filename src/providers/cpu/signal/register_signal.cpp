#include "providers/cpu/kernel_families.hpp"
#include "providers/cpu/signal/signal_kernels.hpp"

namespace tessera::cpu {

void register_signal_kernels(ep::KernelRegistry& r) {
  signal::register_dft(r);
  signal::register_stft(r);
  signal::register_windows(r);
}

}  // namespace tessera::cpu
