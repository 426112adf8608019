#include "providers/cpu/kernel_families.hpp"
#include "providers/cpu/text/text_kernels.hpp"

namespace tessera::cpu {

void register_text_kernels(ep::KernelRegistry& r) {
  r.add({"", "TfIdfVectorizer", 9, ep::kOpsetMax,
         {{"T", {0}, {DataType::kString, DataType::kInt32, DataType::kInt64}}}},
        make_tfidf_vectorizer_kernel);
}

}  // namespace tessera::cpu
