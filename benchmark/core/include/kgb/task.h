// Task specification (format v2): what a spec.json in
// benchmark/tasks/<source>/<name>/ says, after validation. The loader is
// strict: an unknown or misspelt key, a wrong type or a reference to a name
// that does not exist is an Error naming the file and the JSON path.
#pragma once

#include <complex>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kgb/dtype.h"
#include "kgb/result.h"

namespace kgb {

enum class ParamKind {
  Tensor,        // one tensor (input, output, inout, view, scratch)
  TensorList,    // Tensor[] / Tensor?[] / pointer arrays
  Scalar,        // int64, float64, bool, complex, ATen Scalar, enum, int list
  ScalarOutput,  // a host kgb_scalar result (item())
};
enum class TensorRole { Input, Output, InOut, View, Scratch };
enum class ScalarType { Int64, Float64, Bool, Complex, AtenScalar, Enum, IntList };
// How a view output relates to its input (§4 of the task-format contract).
enum class AliasRule {
  Required,      // pure views: the result must be the alias
  WhenPossible,  // alias-or-copy: alias exactly where ATen aliases, else the pre-allocated copy
  Allowed,       // reshape: where ATen aliases, aliasing or copying are both fine
};
enum class DeviceWork { Kernel, Copy, None };
enum class TimingMode { Device, Host, None };

// How input values are drawn. Bounds are expressions over the case's dims and
// scalars (e.g. "0" .. "D" for indices into a dimension of size D).
struct Distribution {
  // normal | uniform | randint | bernoulli | arange | permutation | bits | choice |
  // unique_randint | mask | custom
  std::string kind = "normal";
  std::string low = "-1";  // uniform/randint/unique_randint lower bound (inclusive)
  std::string high = "1";  // uniform upper bound, randint/unique_randint upper bound (exclusive)
  double mean = 0.0, stddev = 1.0;
  double special_fraction = 0.0;  // share of NaN/+Inf/-Inf sprinkled in float inputs
  std::vector<double> exclude;    // values redrawn (integer divisors: [0])
  bool sorted = false;            // ascending along the last dim
  std::vector<double> choice;     // choice: the values drawn from
  // unique_randint: distinct per whole tensor ("tensor") or per slice along `dim` ("slice")
  std::string per = "tensor";
  int64_t dim = -1;
  std::optional<int64_t> pad_value;  // a share of entries replaced by this value
  double pad_share = 0.0;
  std::string count = "0";  // mask: exactly this many trues (expression)
  std::string generator;    // custom: a name registered with KGB_REGISTER_GENERATOR
};

// Layout of one tensor (or of every item of a list) in one case.
struct Layout {
  std::string kind = "contiguous";  // contiguous | transposed | step | strides
  int64_t pad = 0;                  // extra elements after each innermost row
  int64_t step = 2;                 // step: take every step-th element of the innermost dim
  std::vector<int64_t> strides;     // strides: explicit element strides (may be negative)
  int64_t offset = 0;               // poisoned elements below the view's lowest address
  std::string like;                 // another parameter whose strides this tensor copies
  bool conj = false, neg = false;   // inputs: set the flag, store the conjugated / negated values
};

struct Param {
  std::string name;
  std::string description;
  ParamKind kind = ParamKind::Tensor;
  bool optional = false;  // NULL-able pointer (tensor or scalar); a case passes null for None

  // Tensors and tensor lists.
  TensorRole role = TensorRole::Input;
  std::string dtype = "T";           // a dtype name, a type variable, or a dtype expression
  std::vector<std::string> shape;    // dims: integers, dim names or expressions
  std::string shape_from;            // or: the name of an int_list parameter giving the shape
  std::optional<Layout> layout;      // default layout of this tensor / of every list item
  Distribution distribution;
  bool host_resident = false;        // location: host (pinned host memory on GPU platforms)
  std::string alias_of;              // view: the input whose allocation the view lies in
  AliasRule alias = AliasRule::Required;
  bool scratch_zero_init = false;    // scratch: init zero (default poison)
  bool scratch_zero_after = false;   // scratch: all zero again on return
  // Tensor lists.
  std::string count;                 // expression: number of items
  bool nullable = false;             // Tensor?[]: items may be None
  bool pointer_array = false;        // fill kgb_tensor_list::device_data

  // Scalars.
  ScalarType scalar_type = ScalarType::Int64;
  bool random = false;               // drawn from the secret seed for every call (RNG seeds)
  std::vector<std::pair<std::string, int64_t>> enum_values;  // enum: name -> number, in spec order
  std::string list_length;           // int_list: optional expression the case's list must match

  bool is_tensor() const { return kind == ParamKind::Tensor; }
  bool is_list() const { return kind == ParamKind::TensorList; }
  bool is_scalar() const { return kind == ParamKind::Scalar; }
  // A tensor or list the entry writes (and the harness compares or inspects).
  bool is_written() const {
    return (kind == ParamKind::Tensor || kind == ParamKind::TensorList) && role != TensorRole::Input;
  }
  const int64_t* enum_number(std::string_view name) const;
  const std::string* enum_name(int64_t number) const;
};

// A case's value for one scalar parameter.
struct ScalarValue {
  enum class Kind { None, Int, Float, Bool, Complex, IntList, Enum };
  Kind kind = Kind::Int;
  int64_t i = 0;                       // Int, Bool (0/1), Enum (its number)
  double f = 0;                        // Float
  std::complex<double> c;              // Complex
  std::vector<int64_t> list;           // IntList
  std::string name;                    // Enum: the name the case gave

  bool none() const { return kind == Kind::None; }
  // The value as a number for expressions: ints exactly (below 2^53), the
  // real part of a complex value, an enum's number; nullopt for None and lists.
  std::optional<double> number() const;
  std::string to_string() const;  // as a case shows it ("3", "0.5", "[1, -2]", "CUBLAS_OP_T", "None")
  static ScalarValue of_int(int64_t v);
  static ScalarValue of_float(double v);
  static ScalarValue of_bool(bool v);
};

// Per list parameter, in one case.
struct ListCase {
  // Per-item shapes (nullopt item = None); empty: `shape` or the param's shape for every item.
  std::vector<std::optional<std::vector<std::string>>> shapes;
  std::vector<std::string> shape;     // one shape for all items (overrides the param's)
  std::vector<Layout> layouts;        // per item
  std::optional<Layout> layout;       // every item
  bool repeat = false;                // aliasing: repeat — every item is the same tensor
};

// Values of the task's type variables in one case ({"T": f16, "U": f32}).
using DTypeBinding = std::map<std::string, DType>;

struct Case {
  std::string name;
  std::map<std::string, int64_t> dims;  // dim name -> size
  // Per-tensor shape override; nullopt = None for an optional tensor.
  std::map<std::string, std::optional<std::vector<std::string>>> shapes;
  std::map<std::string, Layout> layouts;
  std::map<std::string, ScalarValue> scalars;  // every non-random scalar parameter
  std::map<std::string, ListCase> lists;
  std::map<std::string, std::string> aliases;  // {"C": "A"}: C lives on A's storage
  std::vector<DTypeBinding> dtypes;            // empty: every allowed combination
  std::optional<bool> deterministic;           // overrides the task's flag for this case
  bool cpu = false;                            // performance: also timed on CPU and PoCL platforms
  bool expect_zero = false;                    // an all-zero reference output is intended
};

// Per output: how it is compared (overrides the task's check and tolerance).
struct OutputRule {
  enum class Mode { Default, None, Bitwise } mode = Mode::Default;
  std::map<DType, double> rtol;
  std::optional<double> atol;
  std::map<DType, int> max_ulp;
};

struct Tolerance {
  std::map<DType, double> rtol;  // per dtype; defaults from DESIGN 3.1
  double atol = 1e-4;            // scaled by the reduction length
  std::string reduction = "1";   // expression: number of elements reduced into one output
  std::map<DType, int> max_ulp;  // fp8 and other narrow outputs: allowed distance in representable steps
};

enum class CheckKind {
  Elementwise,  // every output element within tolerance
  Statistical,  // random operators: support, mean and variance within bounds
  Sort,         // values exact; index outputs checked by consistency
  Topk,         // values exact; input[indices] == values; indices distinct; any order among ties
  Custom,       // a C++ check registered with KGB_REGISTER_CHECK
};

struct StatisticalCheck {
  std::vector<double> support;   // allowed output values (empty: any finite, or the interval)
  std::optional<double> support_min, support_max;  // interval support
  bool support_integer = false;
  bool support_is_interval = false;
  std::string mean = "0";        // expression for the expected mean of the output
  std::string variance = "1";    // expression for the per-element variance
  double mean_sigmas = 6.0;      // allowed deviation in standard errors
  bool seeds_must_differ = true; // two seeds must not give identical outputs
  // The whole distribution, not only its mean: a two-sample Kolmogorov-Smirnov
  // test of the output against the reference sampler's output for the same
  // inputs, within each of `strata_bins` quantile bins of the input tensor
  // `strata` (the per-element parameter, e.g. bernoulli's probabilities), so
  // that every parameter level is tested on its own.
  bool distribution = true;
  std::string strata;            // input tensor with the output's shape; empty: one stratum
  int strata_bins = 10;
};

struct OrderCheck {             // sort and topk
  std::string values, indices;  // output tensors
  std::string input;            // the input sorted (default: the first input tensor)
  std::string dim;              // scalar parameter naming the dimension
  std::string sorted;           // topk: bool scalar parameter (empty: unsorted allowed)
};

struct Task {
  std::string id;             // "aten/softmax"
  std::string source;         // "aten"
  std::string name;           // "softmax"
  std::string upstream_name;  // "aten::softmax", "cublas::cublasSgemm_v2", "vllm13::rms_norm"
  std::string overload;       // schema overload of this entry ("" for the primary when it has none)
  bool is_overload = false;   // an extra entry of `overloads` (its key is id.overload)
  std::string entry;          // "kgb_aten_softmax", "kgb_aten_add_Scalar"
  std::string summary;        // one line
  std::string description;    // written for the model
  std::vector<Param> params;
  // Type variables in spec order with their values; combinations allowed.
  std::vector<std::pair<std::string, std::vector<DType>>> type_variables;
  std::vector<DTypeBinding> dtype_combinations;  // empty: every combination
  std::vector<DType> dtypes;  // every dtype any variable takes (union, spec order)
  std::vector<Case> correctness;
  std::vector<Case> performance;
  std::vector<Case> extended;  // published-style grid: never in the prompt or CI
  Tolerance tolerance;
  CheckKind check = CheckKind::Elementwise;
  StatisticalCheck statistical;
  OrderCheck order;  // check == Sort or Topk
  std::map<std::string, OutputRule> output_rules;
  bool deterministic = true;
  DeviceWork device_work = DeviceWork::Kernel;
  TimingMode timing = TimingMode::Device;
  std::string flops = "0";  // expression per case
  std::string bytes = "0";  // expression per case (minimum bytes moved)
  std::vector<std::string> banned_apis;
  std::string baseline;     // "aten", "openblas", "cublas", "plain", ...
  std::vector<Task> overloads;  // extra entry points, each a complete entry inheriting the rest
  std::filesystem::path folder;
  std::string spec_hash;    // of the spec file's bytes: keys the per-run reference cache

  const Param* param(std::string_view name) const;
  int param_index(std::string_view name) const;  // -1 when absent
  // "aten/add" for the primary entry, "aten/add.Scalar" for an overload.
  std::string key() const { return is_overload ? id + "." + overload : id; }
  // The primary entry followed by every overload.
  std::vector<const Task*> entries() const;
  std::filesystem::path solution_path(const std::string& solution_file) const {
    return folder / "solutions" / solution_file;
  }
};

Result<Task> load_task_file(const std::filesystem::path& spec_file);
// The same from text (tests, `kgb new-task`): `file` only names it in errors.
Result<Task> load_task_text(const std::string& text, const std::filesystem::path& file);

struct TaskLoadReport {
  std::vector<Task> tasks;
  std::vector<Error> errors;  // one per task folder that failed; the rest still load
};
TaskLoadReport load_all_tasks(const std::filesystem::path& root);
// Tasks whose id matches a glob ("aten/*", "*softmax*"); empty glob = all.
std::vector<Task> filter_tasks(const std::vector<Task>& tasks, std::string_view glob);
bool glob_match(std::string_view pattern, std::string_view text);

// The C declaration of an entry point, exactly as the model sees it.
std::string entry_declaration(const Task& entry);
// The C type of one parameter in that declaration ("const kgb_tensor_list*").
std::string param_c_type(const Param& p);
// The expression that turns element `arg` of the runner's kgb_arg array into
// that parameter ("a[2].t", "(int)a[1].i", "(const double*)a[3].opt").
std::string entry_argument(const Param& p, const std::string& arg);

// The bundled solution for a platform, read from the task folder.
Result<std::string> bundled_solution(const Task& task, const std::string& solution_file);

// The dtype a tensor (or list) parameter has in a case: resolves names, type
// variables and dtype expressions (promote, result_type, float, widen, real,
// complex, dtype(param)). `scalars` gives the case's scalar values (result_type
// looks at Scalar arguments), `ranks` the rank of every tensor parameter.
Result<DType> resolve_param_dtype(const Task& task, const Param& p, const DTypeBinding& binding,
                                  const std::map<std::string, ScalarValue>& scalars,
                                  const std::map<std::string, int>& ranks);

}  // namespace kgb
