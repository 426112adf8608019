#include "ep/data_transfer.hpp"

#include <cstring>
#include <string>

namespace tessera::ep {

void HostDataTransfer::copy_tensors(const std::vector<const Tensor*>& src,
                                    const std::vector<Tensor*>& dst, Stream*) const {
  check(src.size() == dst.size(), "copy_tensors: ", src.size(), " sources but ", dst.size(),
        " destinations");
  for (size_t i = 0; i < src.size(); ++i) {
    const Tensor& s = *src[i];
    Tensor& d = *dst[i];
    if (s.dtype() != d.dtype() || s.shape() != d.shape())
      fail(ErrorCode::kInvalidArgument, "copy_tensors: ", s.description(), " cannot be copied into ",
           d.description());
    if (s.dtype() == DataType::kString) {
      const auto* a = s.data<std::string>();
      auto* b = d.mutable_data<std::string>();
      for (int64_t k = 0; k < s.num_elements(); ++k) b[k] = a[k];
    } else if (s.byte_size()) {
      std::memcpy(d.mutable_raw_data(), s.raw_data(), s.byte_size());
    }
  }
}

}  // namespace tessera::ep
