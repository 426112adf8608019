#include "onnx/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "core/error.hpp"

namespace tessera::onnx {

namespace {

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

class MappedBytes : public FileBytes {
 public:
  MappedBytes(void* base, size_t map_size, size_t delta) : base_(base), map_size_(map_size) {
    data_ = static_cast<const uint8_t*>(base) + delta;
    size_ = map_size - delta;
  }
  ~MappedBytes() override { ::munmap(base_, map_size_); }
  // A private, never-written file mapping: dropped pages come back from the
  // file if touched, so only whole pages inside the range are given up.
  void done_with(const void* p, size_t n) const override {
    const uintptr_t page = uintptr_t(::sysconf(_SC_PAGESIZE));
    const uintptr_t lo = (uintptr_t(p) + page - 1) / page * page;
    const uintptr_t hi = (uintptr_t(p) + n) / page * page;
    if (hi > lo) ::madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_DONTNEED);
  }

 private:
  void* base_;
  size_t map_size_;
};

class OwnedBytes : public FileBytes {
 public:
  explicit OwnedBytes(size_t n) : bytes_(n) {
    data_ = bytes_.data();
    size_ = n;
  }
  uint8_t* mutable_data() { return bytes_.data(); }

 private:
  std::vector<uint8_t> bytes_;
};

int open_or_throw(const std::string& path, const char* what, int extra_flags = 0) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | extra_flags);
  if (fd < 0) {
    int e = errno;
    if (e == ENOENT || e == ENOTDIR)
      fail(ErrorCode::kNoSuchFile, what, " '", path, "' does not exist");
    fail(ErrorCode::kFail, "cannot open ", what, " '", path, "': ", std::strerror(e));
  }
  return fd;
}

void read_exactly(int fd, uint8_t* dst, uint64_t offset, size_t n, const std::string& path) {
  size_t done = 0;
  while (done < n) {
    ssize_t r = ::pread(fd, dst + done, n - done, off_t(offset + done));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0)
      fail(ErrorCode::kFail, "cannot read ", n, " bytes at offset ", offset, " of '", path,
           "': ", r < 0 ? std::strerror(errno) : "unexpected end of file");
    done += size_t(r);
  }
}

std::shared_ptr<FileBytes> map_or_read(int fd, uint64_t offset, uint64_t length,
                                       const std::string& path) {
  if (length == 0) return std::make_shared<OwnedBytes>(0);
  static const uint64_t page = uint64_t(::sysconf(_SC_PAGESIZE));
  if (offset % page == 0) {
    // Private + writable: pages stay shared with the page cache until written,
    // and a write never reaches the file.
    void* p =
        ::mmap(nullptr, size_t(length), PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, off_t(offset));
    if (p != MAP_FAILED) return std::make_shared<MappedBytes>(p, size_t(length), 0);
  }
  auto bytes = std::make_shared<OwnedBytes>(size_t(length));
  read_exactly(fd, bytes->mutable_data(), offset, size_t(length), path);
  return bytes;
}

uint64_t file_size(int fd, const std::string& path, const char* what) {
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    fail(ErrorCode::kFail, "cannot stat ", what, " '", path, "': ", std::strerror(errno));
  if (S_ISDIR(st.st_mode)) fail(ErrorCode::kFail, what, " '", path, "' is a directory");
  return uint64_t(st.st_size);
}

}  // namespace

std::shared_ptr<FileBytes> map_whole_file(const std::string& path, const char* what) {
  Fd fd(open_or_throw(path, what));
  uint64_t size = file_size(fd.get(), path, what);
  return map_or_read(fd.get(), 0, size, path);
}

std::shared_ptr<FileBytes> map_file_range(const std::string& path, uint64_t offset, uint64_t length,
                                          const std::string& what) {
  // The caller resolved `path` to its canonical form, so a symlink here means
  // it was swapped in since: refuse it.
  Fd fd(open_or_throw(path, "external data file", O_NOFOLLOW));
  uint64_t size = file_size(fd.get(), path, "external data file");
  if (offset > size)
    fail(ErrorCode::kInvalidGraph, what, ": offset ", offset, " is past the end of '", path, "' (",
         size, " bytes)");
  if (length == kToEndOfFile) length = size - offset;
  if (length > size - offset)
    fail(ErrorCode::kInvalidGraph, what, ": offset ", offset, " + length ", length,
         " is past the end of '", path, "' (", size, " bytes)");
  return map_or_read(fd.get(), offset, length, path);
}

}  // namespace tessera::onnx
