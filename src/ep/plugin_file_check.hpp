// A look at a provider library's ELF headers before dlopen maps it. The
// dynamic loader trusts the program headers: a truncated or damaged library
// whose segments end past the end of the file is mapped anyway, and the first
// touch of the missing pages kills the process with SIGBUS instead of
// returning an error. Checking the headers against the file size turns that
// into an error that names the file.
#pragma once
#include <string>

namespace tessera::ep {

// Throws kEPFail when `path` is an ELF file of this machine's class whose
// program header table or any segment's file bytes lie past the end of the
// file. Other files (not ELF, or another class) are left to dlopen, whose own
// message is clear for them.
void check_plugin_file(const std::string& path);

}  // namespace tessera::ep
