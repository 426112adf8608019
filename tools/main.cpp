#include <cstdio>

int main() {
  std::printf("tessera\n");
  return 0;
}
