#include "ep/plugin_file_check.hpp"

#include <link.h>

#include <cstring>
#include <fstream>
#include <vector>

#include "core/error.hpp"

namespace tessera::ep {

namespace {

// `offset + size <= file_size`, without wrapping on damaged 64-bit fields.
bool fits(uint64_t offset, uint64_t size, uint64_t file_size) {
  return offset <= file_size && size <= file_size - offset;
}

}  // namespace

void check_plugin_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return;  // unreadable: dlopen says why
  const auto file_size = static_cast<uint64_t>(in.tellg());
  ElfW(Ehdr) eh{};
  if (file_size < sizeof(eh)) return;  // too short to be ELF: dlopen says so
  in.seekg(0);
  if (!in.read(reinterpret_cast<char*>(&eh), sizeof(eh))) return;
  const bool native_class = eh.e_ident[EI_CLASS] == (sizeof(void*) == 8 ? ELFCLASS64 : ELFCLASS32);
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || !native_class) return;

  auto damaged = [&](const auto&... what) {
    fail(ErrorCode::kEPFail, "provider library '", path, "' is a truncated or damaged ELF file (",
         file_size, " bytes): ", what...);
  };
  if (eh.e_phnum == 0) damaged("it has no program headers");
  if (eh.e_phentsize != sizeof(ElfW(Phdr)))
    damaged("program header entries are ", eh.e_phentsize, " bytes, expected ", sizeof(ElfW(Phdr)));
  const uint64_t table = uint64_t(eh.e_phnum) * sizeof(ElfW(Phdr));
  if (!fits(eh.e_phoff, table, file_size))
    damaged("its program header table (offset ", eh.e_phoff, ", ", table,
            " bytes) ends past the end of the file");
  std::vector<ElfW(Phdr)> ph(eh.e_phnum);
  in.seekg(static_cast<std::streamoff>(eh.e_phoff));
  if (!in.read(reinterpret_cast<char*>(ph.data()), static_cast<std::streamsize>(table)))
    damaged("its program header table could not be read");
  // A segment with no file bytes (PT_GNU_STACK, a bss-only one) maps nothing
  // from the file, whatever its offset says.
  for (size_t i = 0; i < ph.size(); ++i)
    if (ph[i].p_type != PT_NULL && ph[i].p_filesz != 0 &&
        !fits(ph[i].p_offset, ph[i].p_filesz, file_size))
      damaged("segment ", i, " (offset ", ph[i].p_offset, ", ", ph[i].p_filesz,
              " bytes) ends past the end of the file");
}

}  // namespace tessera::ep
