// The math family's kernel factories, by op type. Each source file adds the
// ops it implements; register_math.cpp pairs them with the spec's version
// table (op_versions.inc).
#pragma once
#include <map>
#include <string>

#include "ep/kernel_registry.hpp"

namespace tessera::cpu {

using FactoryMap = std::map<std::string, ep::KernelFactory>;

template <typename K>
ep::KernelFactory factory_of() {
  return [](const ep::KernelInfo& info) { return std::make_unique<K>(info); };
}

void add_binary_arith_factories(FactoryMap& m);    // Add Sub Mul Div Mod Pow PRelu BitShift ...
void add_binary_logic_factories(FactoryMap& m);    // And Or Xor, comparisons
void add_variadic_factories(FactoryMap& m);        // Sum Mean Max Min Where
void add_unary_factories(FactoryMap& m);           // Abs Neg ... activations
void add_cast_factories(FactoryMap& m);            // Cast CastLike
void add_softmax_factories(FactoryMap& m);         // Softmax LogSoftmax Hardmax
void add_det_factories(FactoryMap& m);             // Det

// Registers every KernelDef in `defs` with the factory of its op; throws if
// an op in the table has no factory (caught by the registry unit test).
void register_from_table(ep::KernelRegistry& r, const std::vector<ep::KernelDef>& defs,
                         const FactoryMap& factories);

}  // namespace tessera::cpu
