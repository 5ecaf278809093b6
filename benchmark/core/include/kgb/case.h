// A concrete case: one entry's case bound to dtypes and a seed, with its
// tensors, lists and scalars generated, its reference outputs computed, and
// the checks that compare a call's outputs with the reference's.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "kgb/reference.h"
#include "kgb/result.h"
#include "kgb/task.h"
#include "kgb/tensor.h"
#include "kgb/verdict.h"

namespace kgb {

// The items of one tensor-list parameter and their place in the list's one
// allocation: items in a seeded permutation of the list order, each 256-byte
// aligned, with 1-4 x 256 poisoned bytes between neighbours (a kernel that
// assumes items lie back to back reads the poison).
struct ListInstance {
  std::vector<std::optional<HostTensor>> items;  // nullopt: a None item
  std::vector<int64_t> byte_offsets;             // per item in the allocation; -1 for None
  uint64_t allocation_bytes = 0;
  std::vector<std::byte> packed;  // input and inout lists: the whole allocation as sent (gaps poisoned)
  bool repeat = false;            // every item is the same tensor (one place in the allocation)
  // Bytes of the allocation outside every item (the gaps and the tail).
  std::vector<char> gap_mask() const;
};

struct CaseInstance {
  const Task* task = nullptr;  // the entry: the task itself or one of its overloads
  const Case* spec = nullptr;
  DTypeBinding dtypes;         // value of every type variable
  DType dtype = DType::F32;    // the first variable's value (or the first tensor's fixed dtype)
  uint64_t seed = 0;
  std::map<std::string, HostTensor> tensors;  // every tensor parameter that is not None (outputs zero-filled)
  std::set<std::string> none;                 // optional tensors that are None in this case
  std::map<std::string, ListInstance> lists;
  std::map<std::string, ScalarValue> scalars;  // every scalar parameter (random ones drawn)
  std::map<std::string, std::string> aliases;  // output -> input whose storage it lives on

  // Views of the instance for a reference or a check: inputs point at the
  // instance's tensors; written tensors at `written` when given.
  RefArgs ref_args() const;
  std::string label() const;        // "small/f32", "small/T=f16,U=f32"
  std::string dtype_label() const;  // "f32", "T=f16,U=f32"
};

// What a candidate's descriptor of a view output said after the call.
struct ViewObservation {
  enum class Where { Unchanged, Alias, Outside } where = Where::Unchanged;
  int alias_param = -1;           // parameter whose allocation holds `data` (Alias)
  ViewResult view;                // sizes, strides, element offset of data in that allocation
  int64_t reported_storage_offset = 0;  // the descriptor's storage_offset field
  bool misaligned = false;        // data is not on an element boundary of that allocation
};

// What one call produced: the reference's answers, or a kernel's outputs as
// the runner sent them back.
struct CaseOutputs {
  std::map<std::string, HostTensor> tensors;  // outputs, inouts, scratch; view outputs on the copy path
  std::map<std::string, std::vector<std::optional<HostTensor>>> lists;  // written lists, per item
  std::map<std::string, ViewResult> views;                 // reference: views it answered
  std::map<std::string, std::vector<ViewResult>> list_views;
  std::map<std::string, ViewObservation> observed_views;   // kernel: what each view descriptor said
  std::map<std::string, std::vector<ViewObservation>> observed_list_views;
  std::map<std::string, kgb_scalar> scalars;               // host scalar results
};

// Every dtype binding a case runs for: its own list, else every allowed
// combination of the task's type variables (dtype_combinations, else the
// cartesian product), else the empty binding of a task without variables.
std::vector<DTypeBinding> case_dtypes(const Task& task, const Case& c);
// The label of a binding ("f32" for one variable).
std::string binding_label(const DTypeBinding& b);

// Builds shapes, layouts, lists and scalars, and draws inputs from `seed`.
Result<CaseInstance> instantiate_case(const Task& entry, const Case& c, const DTypeBinding& dtypes, uint64_t seed);

// Runs the registered reference on the instance (inputs read in place,
// outputs written into copies) and returns what it produced.
Result<CaseOutputs> run_reference(const CaseInstance& instance);

// Checks a call's outputs against the reference's, following the entry's
// check kind, per-output rules and tolerance. View outputs are always
// checked by metadata; host scalars exactly.
CaseCheck check_outputs(const CaseInstance& instance, const CaseOutputs& expected, const CaseOutputs& got);

// A hash of the bits of every output element, in logical order, whatever the
// layout: equal outputs hash equal, so the outputs of two calls can be
// compared without keeping a copy of either.
uint64_t output_bits_hash(const CaseOutputs& outs);

// Whether two calls produced bitwise the same outputs (the determinism check);
// `what` names the first difference.
bool same_outputs(const CaseOutputs& a, const CaseOutputs& b, std::string& what);

// Evaluates one of the entry's expressions (flops, bytes, tolerance.reduction)
// for an instance.
Result<double> evaluate_case_expression(const CaseInstance& instance, const std::string& expression);

// A view of `base`'s storage with the reference view's geometry (the values a
// correct alias shows), or an error when the view leaves the storage.
Result<HostTensor> materialize_view(const HostTensor& base, const ViewResult& view);

}  // namespace kgb
