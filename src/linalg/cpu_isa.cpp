#include "linalg/cpu_isa.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

namespace tessera::linalg {

namespace {

Isa detect() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  const bool fma = __builtin_cpu_supports("fma");
  if (fma && __builtin_cpu_supports("avx512f")) return Isa::kAvx512;
  if (fma && __builtin_cpu_supports("avx2")) return Isa::kAvx2;
#endif
  return Isa::kPortable;
}

Isa capped() {
  const Isa cpu = cpu_isa_supported();
  const char* env = std::getenv("TESSERA_CPU_ISA");
  if (!env || !*env) return cpu;
  for (Isa isa : {Isa::kPortable, Isa::kAvx2, Isa::kAvx512})
    if (std::strcmp(env, isa_name(isa)) == 0) return isa < cpu ? isa : cpu;
  // Not an exception: the first kernel to ask may run during static
  // initialisation, where throwing would end the process.
  std::fprintf(stderr,
               "tessera: ignoring TESSERA_CPU_ISA=\"%s\" (expected avx512, avx2 or portable); "
               "using %s\n",
               env, isa_name(cpu));
  return cpu;
}

}  // namespace

Isa cpu_isa_supported() {
  static const Isa isa = detect();
  return isa;
}

Isa cpu_isa() {
  static const Isa isa = capped();
  return isa;
}

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::kAvx512:
      return "avx512";
    case Isa::kAvx2:
      return "avx2";
    case Isa::kPortable:
      break;
  }
  return "portable";
}

}  // namespace tessera::linalg
