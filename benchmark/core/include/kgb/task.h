// Task specification: what a spec.json in benchmark/tasks/<source>/<name>/
// says, after validation. The loader turns every mistake into an Error that
// names the file, the field and what was expected.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kgb/dtype.h"
#include "kgb/result.h"

namespace kgb {

enum class ParamKind { Tensor, Scalar };
enum class TensorRole { Input, Output, InOut };
enum class ScalarType { Int64, Float64, Bool };

// How input values are drawn. Bounds are expressions over the case's dims and
// scalars (e.g. "0" .. "D" for indices into a dimension of size D).
struct Distribution {
  std::string kind = "normal";  // normal | uniform | randint | bernoulli | arange | permutation
  std::string low = "-1";       // uniform/randint lower bound (inclusive)
  std::string high = "1";       // uniform upper bound, randint upper bound (exclusive)
  double mean = 0.0, stddev = 1.0;
  double special_fraction = 0.0;  // share of NaN/+Inf/-Inf sprinkled in float inputs
};

struct Param {
  std::string name;
  ParamKind kind = ParamKind::Tensor;
  // tensors
  TensorRole role = TensorRole::Input;
  std::string dtype = "T";              // a dtype name, or a type variable ("T") bound by the case
  std::vector<std::string> shape;       // dims: integers or dim names, default shape for cases
  Distribution distribution;
  // scalars
  bool random = false;  // drawn from the secret seed for every call (RNG seeds)
  ScalarType scalar_type = ScalarType::Int64;
  std::string description;
};

// Layout of one tensor in one case.
struct Layout {
  std::string kind = "contiguous";  // contiguous | transposed | padded | step | strides
  int64_t pad = 0;                  // padded: extra elements after each innermost row
  int64_t step = 2;                 // step: take every step-th element of the innermost dim
  std::vector<int64_t> strides;     // strides: explicit element strides
};

struct Case {
  std::string name;
  std::map<std::string, int64_t> dims;                  // dim name -> size
  std::map<std::string, std::vector<std::string>> shapes;  // per-tensor shape override
  std::map<std::string, Layout> layouts;
  std::map<std::string, double> scalars;               // scalar param -> value
  std::vector<std::string> dtypes;  // empty: every dtype variant of the task
  bool expect_zero = false;         // an all-zero reference output is intended (K = 0, ...)
};

struct Tolerance {
  std::map<DType, double> rtol;   // per dtype; defaults from DESIGN 3.1
  double atol = 1e-4;             // scaled by the reduction length
  std::string reduction = "1";    // expression: number of elements reduced into one output
};

enum class CheckKind {
  Elementwise,  // every output element within tolerance
  Statistical,  // random operators: support, mean and variance within bounds
  Sort,         // values exact; index outputs checked by consistency
};

struct StatisticalCheck {
  std::vector<double> support;   // allowed output values (empty: any finite)
  std::string mean = "0";        // expression for the expected mean of the output
  std::string variance = "1";    // expression for the per-element variance
  double mean_sigmas = 6.0;      // allowed deviation in standard errors
  bool seeds_must_differ = true; // two seeds must not give identical outputs
};

struct Task {
  std::string id;           // "aten/softmax"
  std::string source;       // "aten"
  std::string name;         // "softmax"
  std::string entry;        // "kgb_aten_softmax"
  std::string summary;      // one line
  std::string description;  // written for the model
  std::vector<Param> params;
  std::vector<std::string> type_variables;  // e.g. {"T"}
  std::vector<DType> dtypes;                // values the type variable takes
  std::vector<Case> correctness;
  std::vector<Case> performance;
  Tolerance tolerance;
  CheckKind check = CheckKind::Elementwise;
  StatisticalCheck statistical;
  std::string sort_values_output, sort_indices_output, sort_dim_scalar;  // check == Sort
  bool deterministic = true;
  std::string flops = "0";  // expression per case
  std::string bytes = "0";  // expression per case (minimum bytes moved)
  std::vector<std::string> banned_apis;
  std::string baseline;     // "aten", "openblas", "plain"
  std::filesystem::path folder;

  const Param* param(std::string_view name) const;
  std::filesystem::path solution_path(const std::string& solution_file) const {
    return folder / "solutions" / solution_file;
  }
};

Result<Task> load_task_file(const std::filesystem::path& spec_file);

struct TaskLoadReport {
  std::vector<Task> tasks;
  std::vector<Error> errors;  // one per task folder that failed; the rest still load
};
TaskLoadReport load_all_tasks(const std::filesystem::path& root);
// Tasks whose id matches a glob ("aten/*", "*softmax*"); empty glob = all.
std::vector<Task> filter_tasks(const std::vector<Task>& tasks, std::string_view glob);
bool glob_match(std::string_view pattern, std::string_view text);

// The C declaration of the entry point, exactly as the model sees it.
std::string entry_declaration(const Task& task);

// The bundled solution for a platform, read from the task folder.
Result<std::string> bundled_solution(const Task& task, const std::string& solution_file);

}  // namespace kgb
