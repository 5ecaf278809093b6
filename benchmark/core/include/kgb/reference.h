// Registries of what a task adds in C++ next to its spec, all filled by static
// registration (link the objects whole: an OBJECT library):
//   KGB_REGISTER_REFERENCE(key, fn)   the reference (run in the harness process)
//   KGB_REGISTER_GENERATOR(name, fn)  a custom input generator (dist kind "custom")
//   KGB_REGISTER_CHECK(key, fn)       a custom output check (check "custom")
// Keys are "<task id>" or "<task id>.<overload>"; generator names are
// "<task id>/<param>" or shared "common/<name>". Baselines live in backends/
// (they run in the child, like a candidate).
#pragma once

#include <complex>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "kgb/dtype.h"
#include "kgb/random.h"
#include "kgb/task.h"
#include "kgb/tensor.h"
#include "kgb/verdict.h"

namespace kgb {

// A view result: the reference's answer for a view output, relative to the
// allocation of the input named by alias_of (storage_offset counts elements
// from that allocation's start, as kgb_tensor::storage_offset does).
struct ViewResult {
  std::vector<int64_t> sizes, strides;
  int64_t storage_offset = 0;
};

// Arguments of one reference call, by parameter name: inputs filled, outputs
// allocated with the case's layout (outputs zero-filled), scalars as the case
// gave them. References write outputs, in-place tensors and list items, and
// answer views and host scalars through set_view / set_scalar.
struct RefArgs {
  DType dtype = DType::F32;  // the first type variable's value (or the first tensor's dtype)
  DTypeBinding dtypes;       // every type variable's value
  std::map<std::string, HostTensor*> tensors;               // nullptr: an optional tensor that is None
  std::map<std::string, std::vector<HostTensor*>> lists;    // nullptr item: None
  std::map<std::string, ScalarValue> scalars;
  std::map<std::string, ViewResult> views;                  // set_view
  std::map<std::string, std::vector<ViewResult>> list_views;  // set_view_item
  std::map<std::string, kgb_scalar> scalar_results;         // set_scalar

  HostTensor& tensor(const std::string& name) const;           // throws for None
  HostTensor* optional_tensor(const std::string& name) const;  // nullptr for None
  const std::vector<HostTensor*>& list(const std::string& name) const;
  const ScalarValue& value(const std::string& name) const;
  bool has(const std::string& name) const;  // a tensor or scalar that is not None
  double scalar(const std::string& name) const;     // numeric value (int, float, bool, enum, real part)
  int64_t int_scalar(const std::string& name) const;  // exact for integers, bools and enums
  bool bool_scalar(const std::string& name) const;
  std::complex<double> complex_scalar(const std::string& name) const;
  kgb_scalar aten_scalar(const std::string& name) const;  // dtype by the value's kind
  const std::vector<int64_t>& int_list(const std::string& name) const;
  const std::string& enum_name(const std::string& name) const;

  void set_view(const std::string& name, std::vector<int64_t> sizes, std::vector<int64_t> strides, int64_t storage_offset);
  void set_view_item(const std::string& name, size_t index, std::vector<int64_t> sizes, std::vector<int64_t> strides,
                     int64_t storage_offset);
  void set_scalar(const std::string& name, kgb_scalar value);
};

// A reference writes every output (and in-place) tensor of the call. It may
// throw std::runtime_error for arguments the spec promises never to produce:
// that is a bug in the task, reported by the validator.
using ReferenceFn = std::function<void(RefArgs&)>;

void register_reference(const std::string& key, ReferenceFn fn);
const ReferenceFn* find_reference(const std::string& key);
std::vector<std::string> registered_references();

// A custom generator fills `tensor` (its sizes, strides and dtype are set;
// write logical elements, e.g. with set/set_int/set_complex) from the case's
// dims and scalars, the tensors filled before it (parameter order) and a
// seeded generator. `item` is the list index for list items, else -1.
struct GeneratorArgs {
  HostTensor& tensor;
  const std::string& param;
  int64_t item;
  const std::map<std::string, int64_t>& dims;
  const std::map<std::string, ScalarValue>& scalars;
  const std::map<std::string, const HostTensor*>& filled;
  const DTypeBinding& dtypes;
  SplitMix64& rng;
};
using GeneratorFn = std::function<void(GeneratorArgs&)>;
void register_generator(const std::string& name, GeneratorFn fn);
const GeneratorFn* find_generator(const std::string& name);

// A custom check compares the candidate's outputs (`got`) with the
// reference's (`expected`), given the inputs as sent (`inputs`), and records
// what it found in `check` (checked, mismatches, status, message, output,
// first_bad_index, expected/got texts). It must never throw.
struct CheckContext {
  const RefArgs& inputs;
  const RefArgs& expected;
  const RefArgs& got;
};
using CheckFn = std::function<void(const CheckContext&, CaseCheck&)>;
void register_check(const std::string& key, CheckFn fn);
const CheckFn* find_check(const std::string& key);

struct ReferenceRegistrar {
  ReferenceRegistrar(const char* key, ReferenceFn fn) { register_reference(key, std::move(fn)); }
};
struct GeneratorRegistrar {
  GeneratorRegistrar(const char* name, GeneratorFn fn) { register_generator(name, std::move(fn)); }
};
struct CheckRegistrar {
  CheckRegistrar(const char* key, CheckFn fn) { register_check(key, std::move(fn)); }
};

#define KGB_CONCAT_INNER(a, b) a##b
#define KGB_CONCAT(a, b) KGB_CONCAT_INNER(a, b)
// KGB_REGISTER_REFERENCE("aten/softmax", softmax_reference);
#define KGB_REGISTER_REFERENCE(key, fn) \
  static const ::kgb::ReferenceRegistrar KGB_CONCAT(kgb_reference_registrar_, __LINE__)(key, fn)
// KGB_REGISTER_GENERATOR("blas/strsv/A", well_conditioned_triangle);
#define KGB_REGISTER_GENERATOR(name, fn) \
  static const ::kgb::GeneratorRegistrar KGB_CONCAT(kgb_generator_registrar_, __LINE__)(name, fn)
// KGB_REGISTER_CHECK("vllm/moe_align_block_size", moe_align_check);
#define KGB_REGISTER_CHECK(key, fn) static const ::kgb::CheckRegistrar KGB_CONCAT(kgb_check_registrar_, __LINE__)(key, fn)

}  // namespace kgb
