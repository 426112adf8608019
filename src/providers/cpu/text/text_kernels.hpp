// Factories of the text family's kernels (registered in register_text.cpp).
#pragma once
#include <memory>

#include "ep/kernel.hpp"

namespace tessera::cpu {

std::unique_ptr<ep::OpKernel> make_tfidf_vectorizer_kernel(const ep::KernelInfo& info);

}  // namespace tessera::cpu
