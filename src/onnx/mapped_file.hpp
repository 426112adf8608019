// Read-only views of files: memory-mapped when possible, otherwise read into
// memory. Sizes are size_t throughout so files over 2 GiB work.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace tessera::onnx {

class FileBytes {
 public:
  virtual ~FileBytes() = default;
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  // Tells the OS that bytes [p, p + n) of this view will not be read again,
  // so a mapping's pages for them can leave memory (they would be read from
  // the file again if they were). Read bytes held in memory stay.
  virtual void done_with(const void* p, size_t n) const {
    (void)p;
    (void)n;
  }

 protected:
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

// Maps the whole file (read-only; an empty file gives size 0). Throws
// kNoSuchFile when it does not exist, kFail when it cannot be read.
std::shared_ptr<FileBytes> map_whole_file(const std::string& path, const char* what = "file");

constexpr uint64_t kToEndOfFile = ~uint64_t(0);

// Maps or reads [offset, offset + length) of a file (length kToEndOfFile: the
// rest of it). `offset` must be a multiple of the page size to map; otherwise
// the bytes are read. The mapping is private copy-on-write, so a writer never
// reaches the file. A range past the end throws kInvalidGraph starting with `what`.
std::shared_ptr<FileBytes> map_file_range(const std::string& path, uint64_t offset, uint64_t length,
                                          const std::string& what);

}  // namespace tessera::onnx
