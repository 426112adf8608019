/* A plugin built against another plugin ABI: the runtime must refuse it. By
 * default it claims a future version (999); the build also makes it with
 * TEST_ABI_VERSION=1, a plugin built before streams were added (version 2). */
#include <stddef.h>
#include <stdint.h>

#ifndef TEST_ABI_VERSION
#define TEST_ABI_VERSION 999u
#endif

__attribute__((visibility("default"))) uint32_t tessera_ep_abi_version(void) {
  return TEST_ABI_VERSION;
}
__attribute__((visibility("default"))) const void* tessera_ep_factory(const void* host) {
  (void)host;
  return NULL;
}
