/* A plugin built against a future plugin ABI: the runtime must refuse it. */
#include <stddef.h>
#include <stdint.h>

__attribute__((visibility("default"))) uint32_t tessera_ep_abi_version(void) { return 999u; }
__attribute__((visibility("default"))) const void* tessera_ep_factory(const void* host) {
  (void)host;
  return NULL;
}
