// Random generator kernels: the registration hook register_random.cpp calls.
#pragma once
#include "ep/kernel_registry.hpp"

namespace tessera::cpu::rnd {

void register_random_basic(ep::KernelRegistry& r);  // Random*, Bernoulli, Multinomial

}  // namespace tessera::cpu::rnd
