// Spec format v2: strict loading (every unknown or misspelt key, wrong type or
// dangling name is an error with the file and the JSON path), the new
// parameter kinds, dtype expressions, and what a case instance holds.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "kgb/case.h"
#include "kgb/evaluator.h"
#include "kgb/process.h"
#include "kgb/task.h"
#include "kgb/decimal_text.h"
#include "kgb/task_text.h"

namespace {

// A v2 spec with a list, an int list, an enum, an optional tensor and a
// complex scalar; each test breaks one thing.
const char* kSpec = R"~({
  "id": "demo/mix", "upstream_name": "aten::cat", "summary": "s", "description": "d",
  "type_variables": {"T": ["f32", "f16"], "U": ["f32", "f64"]},
  "dtype_combinations": [{"T": "f32", "U": "f64"}, {"T": "f16", "U": "f32"}],
  "params": [
    {"name": "xs", "tensor_list": "input", "dtype": "T", "count": "n", "shape": ["A", "B"]},
    {"name": "bias", "tensor": "input", "dtype": "U", "shape": ["B"], "optional": true},
    {"name": "size", "scalar": "int_list", "length": "2"},
    {"name": "mode", "scalar": "enum", "values": {"none": 0, "mean": 1}},
    {"name": "alpha", "scalar": "complex"},
    {"name": "out", "tensor": "output", "dtype": "promote(T, U)", "shape": ["at(size, 0)", "at(size, -1)"]}
  ],
  "correctness": [
    {"name": "a", "dims": {"n": 2, "A": 3, "B": 4}, "scalars": {"size": [6, 4], "mode": "mean", "alpha": [1, -2]}},
    {"name": "b", "dims": {"n": 3, "A": 1, "B": 5}, "shapes": {"bias": null}, "scalars": {"size": [3, 5], "mode": "none", "alpha": [0, 1]},
     "lists": {"xs": {"shapes": [[1, 5], [1, 5], [1, 5]], "layout": {"kind": "transposed"}}}}
  ],
  "performance": []
})~";

struct SpecFolder {
  kgb::TempDir root{"kgb-spec-v2-test"};
  std::filesystem::path write(const std::string& text) {
    auto dir = root.path() / "demo" / "mix";
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "spec.json") << text;
    return dir / "spec.json";
  }
};

std::string replace(std::string text, const std::string& from, const std::string& to) {
  auto pos = text.find(from);
  REQUIRE_MESSAGE(pos != std::string::npos, from);
  return text.replace(pos, from.size(), to);
}

std::string load_error(const std::string& text) {
  SpecFolder f;
  auto path = f.write(text);
  auto t = kgb::load_task_file(path);
  REQUIRE_FALSE(t.ok());
  CHECK(t.error().message.find(path.string()) != std::string::npos);  // names the file
  return t.error().message;
}

bool has(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return true;
  MESSAGE("\"" << part << "\" not in: " << text);
  return false;
}

}  // namespace

TEST_CASE("the v2 example spec loads with its kinds, combinations and declaration") {
  SpecFolder f;
  auto t = kgb::load_task_file(f.write(kSpec));
  REQUIRE_MESSAGE(t.ok(), (t.ok() ? "" : t.error().message));
  CHECK(t->upstream_name == "aten::cat");
  CHECK(t->params[0].kind == kgb::ParamKind::TensorList);
  CHECK(t->params[1].optional);
  CHECK(kgb::entry_declaration(*t) ==
        "extern \"C\" int kgb_demo_mix(const kgb_tensor_list* xs, const kgb_tensor* bias, kgb_int_list size, int mode, "
        "kgb_complex alpha, kgb_tensor* out, kgb_stream stream);");
  const auto bindings = kgb::case_dtypes(*t, t->correctness[0]);
  REQUIRE(bindings.size() == 2);  // the two combinations, not the 2 x 2 product
  auto inst = kgb::instantiate_case(*t, t->correctness[0], bindings[0], 7);
  REQUIRE_MESSAGE(inst.ok(), (inst.ok() ? "" : inst.error().message));
  CHECK(inst->tensors.at("out").dtype() == kgb::DType::F64);  // promote(f32, f64)
  CHECK(inst->tensors.at("out").sizes() == std::vector<int64_t>{6, 4});
  CHECK(inst->scalars.at("mode").i == 1);
  const kgb::ListInstance& xs = inst->lists.at("xs");
  REQUIRE(xs.items.size() == 2);
  // One allocation, items 256-byte aligned, never back to back.
  for (int64_t off : xs.byte_offsets) CHECK(off % 256 == 0);
  const int64_t a = xs.byte_offsets[0], b = xs.byte_offsets[1];
  const int64_t first = std::min(a, b), second = std::max(a, b);
  const int64_t first_bytes = static_cast<int64_t>(xs.items[a < b ? 0 : 1]->storage().size());
  CHECK(second - first > first_bytes);
  CHECK(xs.packed.size() == xs.allocation_bytes);
  auto none_case = kgb::instantiate_case(*t, t->correctness[1], bindings[1], 7);
  REQUIRE(none_case.ok());
  CHECK(none_case->none.count("bias") == 1);
  CHECK(none_case->lists.at("xs").items[0]->strides() == std::vector<int64_t>{1, 1});
  CHECK(none_case->tensors.at("out").dtype() == kgb::DType::F32);  // promote(f16, f32)
}

TEST_CASE("a misspelt or unknown key fails with the file and the JSON path") {
  CHECK(has(load_error(replace(kSpec, R"("dtype": "T", "count")", R"("dtpye": "T", "count")")),
            "field 'params[0].dtpye': unknown key (expected one of name, description, tensor_list, dtype, count, shape, layout, nullable, pointer_array, dist, location, alias_of, alias)"));
  CHECK(has(load_error(replace(kSpec, R"("upstream_name")", R"("upstream")")), "field 'upstream': unknown key"));
  CHECK(has(load_error(replace(kSpec, R"("scalars": {"size": [6, 4])", R"("layout": {"xs": {}}, "scalars": {"size": [6, 4])")),
            "field 'correctness[0].layout': unknown key"));
  CHECK(has(load_error(replace(kSpec, R"({"kind": "transposed"})", R"({"kind": "transposed", "pda": 2})")),
            "field 'correctness[1].lists.xs.layout.pda': unknown key"));
  CHECK(has(load_error(replace(kSpec, R"("performance": [])", R"("performance": [], "tolerence": {"atol": 1})")),
            "field 'tolerence': unknown key"));
  CHECK(has(load_error(replace(kSpec, R"("count": "n", "shape")", R"("count": "n", "shape": ["A"], "kind": "x", "shape_")")),
            "params[0].kind': unknown key"));
}

TEST_CASE("wrong types and dangling names fail with the JSON path") {
  CHECK(has(load_error(replace(kSpec, R"("mode": "mean")", R"("mode": "average")")),
            "field 'correctness[0].scalars.mode': unknown enum name 'average' (expected one of none, mean)"));
  CHECK(has(load_error(replace(kSpec, R"("alpha": [1, -2])", R"("alpha": 1.5)")), "correctness[0].scalars.alpha': expected [re, im]"));
  CHECK(has(load_error(replace(kSpec, R"("size": [6, 4])", R"("size": [6, 4, 1])")), "correctness[0].scalars.size': has 3 values; length is 2"));
  CHECK(has(load_error(replace(kSpec, R"~("promote(T, U)")~", R"~("promote(T, V)")~")), "params[5].dtype"));
  CHECK(has(load_error(replace(kSpec, R"~("promote(T, U)")~", R"~("dtype(nothing)")~")), "'nothing' in \"dtype(nothing)\" is not a tensor or scalar parameter"));
  CHECK(has(load_error(replace(kSpec, R"~("at(size, 0)")~", R"~("at(sizes, 0)")~")), "correctness[0].shapes.out"));
  CHECK(has(load_error(replace(kSpec, R"({"T": "f32", "U": "f64"}, )", R"({"T": "f32", "V": "f64"}, )")), "dtype_combinations[0].V': not a type variable"));
  CHECK(has(load_error(replace(kSpec, R"("shapes": {"bias": null}, )", "")), "optional parameter 'bias' must be None (null) in at least one correctness case"));
  CHECK(has(load_error(replace(kSpec, R"("aten::cat")", R"("torch::cat")")), "expected a name in aten::, vllm13:: or cublas::"));
  CHECK(has(load_error(replace(kSpec, R"("performance": [])", R"("timing": "none", "performance": [{"name": "p", "dims": {"n": 1, "A": 1, "B": 1}, "scalars": {"size": [1, 1], "mode": "none", "alpha": [0, 0]}}])")),
            "timing: none allows no performance cases"));
  CHECK(has(load_error(replace(kSpec, R"("shapes": [[1, 5], [1, 5], [1, 5]])", R"("shapes": [[1, 5], [1, 5]])")), "gives 2 items; count is 3"));
  CHECK(has(load_error(replace(kSpec, R"("shapes": {"bias": null}, )", R"("shapes": {"bias": null, "xs": [1]}, )")), "no tensor parameter named 'xs'"));
}

TEST_CASE("a list of views names the input its items lie in, and is always an alias") {
  const std::string split = replace(replace(kSpec, R"({"name": "xs", "tensor_list": "input", "dtype": "T", "count": "n", "shape": ["A", "B"]},)",
                                            R"({"name": "xs", "tensor_list": "input", "dtype": "T", "count": "n", "shape": ["A", "B"]},
    {"name": "parts", "tensor_list": "view", "alias_of": "bias", "dtype": "U", "count": "2", "shape": ["B"]},)"),
                                    R"("performance": [])", R"("performance": [], "timing": "none")");
  SpecFolder f;
  auto t = kgb::load_task_file(f.write(split));
  REQUIRE_MESSAGE(t.ok(), (t.ok() ? "" : t.error().message));
  const kgb::Param* parts = t->param("parts");
  REQUIRE(parts);
  CHECK(parts->role == kgb::TensorRole::View);
  CHECK(parts->alias_of == "bias");
  CHECK(parts->alias == kgb::AliasRule::Required);
  const std::string prompt = kgb::describe_params(*t);
  CHECK(has(prompt, "- parts: view tensor list of count 2, dtype U, items of shape [B]; every item is a view of 'bias' to describe"));
  CHECK(has(prompt, "- xs: input tensor list of count n, dtype T, items of shape [A, B]; items lie in one allocation"));

  CHECK(has(load_error(replace(split, R"("alias_of": "bias", )", "")), "field 'params[1].alias_of': missing; a list of views names the input it lies in"));
  CHECK(has(load_error(replace(split, R"("alias_of": "bias", )", R"("alias_of": "bias", "alias": "when_possible", )")),
            "field 'params[1].alias': a list of views is always an alias: expected required, found 'when_possible'"));
  CHECK(has(load_error(replace(split, R"("alias_of": "bias", )", R"("alias_of": "size", )")), "'size' is not an input tensor of the task"));
  CHECK(has(load_error(replace(split, R"("count": "n", "shape": ["A", "B"]},)", R"("count": "n", "alias_of": "bias", "shape": ["A", "B"]},)")),
            "field 'params[0].alias_of': only a view output has alias_of and alias"));
}

TEST_CASE("the prompt prints whole-number dimensions exactly, however large") {
  SpecFolder f;
  auto t = kgb::load_task_file(f.write(replace(kSpec, R"("dims": {"n": 2, "A": 3, "B": 4})", R"("dims": {"n": 2, "A": 3, "B": 1048576})")));
  REQUIRE_MESSAGE(t.ok(), (t.ok() ? "" : t.error().message));
  const std::string text = kgb::describe_case(*t, t->correctness[0]);
  CHECK(has(text, "[3, 1048576]"));
  CHECK(text.find("e+06") == std::string::npos);
}

TEST_CASE("the prompt prints float scalars in their shortest exact spelling") {
  CHECK(kgb::format_double(0.1) == "0.1");
  CHECK(kgb::format_double(-2.5) == "-2.5");
  CHECK(kgb::format_double(1e-7) == "1e-07");
  CHECK(kgb::format_double(0.1 + 0.2) == "0.30000000000000004");  // shortest that reads back exactly
  kgb::ScalarValue v;
  v.kind = kgb::ScalarValue::Kind::Float;
  v.f = 0.1;
  CHECK(v.to_string() == "0.1");
  v.kind = kgb::ScalarValue::Kind::Complex;
  v.c = {0.1, -0.7};
  CHECK(v.to_string() == "(0.1 - 0.7i)");
}

TEST_CASE("float and ATen Scalar arguments spell infinities and NaN as strings") {
  const std::string with_p = replace(kSpec, R"("performance": [])", R"("performance": [],
    "overloads": [{"name": "Scalar", "params": [{"name": "self", "tensor": "input", "dtype": "T", "shape": ["N"]},
                                                {"name": "other", "scalar": "scalar"}, {"name": "p", "scalar": "float64"},
                                                {"name": "out", "tensor": "output", "dtype": "T", "shape": ["N"]}],
                   "correctness": [{"name": "x", "dims": {"N": 3}, "scalars": {"other": "inf", "p": "-inf"}},
                                   {"name": "y", "dims": {"N": 5}, "scalars": {"other": "-inf", "p": "nan"}},
                                   {"name": "z", "dims": {"N": 2}, "scalars": {"other": 1.5, "p": "+inf"}}],
                   "performance": []}])");
  SpecFolder f;
  auto t = kgb::load_task_file(f.write(with_p));
  REQUIRE_MESSAGE(t.ok(), (t.ok() ? "" : t.error().message));
  const auto& cases = t->overloads.at(0).correctness;
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(cases[0].scalars.at("other").kind == kgb::ScalarValue::Kind::Float);
  CHECK(cases[0].scalars.at("other").f == inf);
  CHECK(cases[0].scalars.at("p").f == -inf);
  CHECK(cases[1].scalars.at("other").f == -inf);
  CHECK(std::isnan(cases[1].scalars.at("p").f));
  CHECK(cases[2].scalars.at("p").f == inf);
  CHECK(has(kgb::describe_case(t->overloads.at(0), cases[0]), "other=inf"));
  // Other strings stay errors, naming the accepted spellings.
  CHECK(has(load_error(replace(with_p, R"("p": "-inf"})", R"("p": "infinity"})")),
            "expected a number or \"inf\", \"-inf\", \"nan\", found \"infinity\""));
  CHECK(has(load_error(replace(with_p, R"("other": "inf")", R"("other": "Inf")")), "expected an ATen Scalar: a number, \"inf\""));
}

TEST_CASE("overloads inherit, need three cases each, and get their own entry and key") {
  const std::string with_overload = replace(kSpec, R"("performance": [])", R"("performance": [],
    "overloads": [{"name": "Scalar", "params": [{"name": "self", "tensor": "input", "dtype": "T", "shape": ["N"]},
                                                {"name": "other", "scalar": "scalar"},
                                                {"name": "out", "tensor": "output", "dtype": "T", "shape": ["N"]}],
                   "correctness": [{"name": "x", "dims": {"N": 3}, "scalars": {"other": 2}},
                                   {"name": "y", "dims": {"N": 5}, "scalars": {"other": 0.5}},
                                   {"name": "z", "dims": {"N": 0}, "scalars": {"other": {"i": "9007199254740993"}}}],
                   "performance": []}])");
  SpecFolder f;
  auto t = kgb::load_task_file(f.write(with_overload));
  REQUIRE_MESSAGE(t.ok(), (t.ok() ? "" : t.error().message));
  REQUIRE(t->overloads.size() == 1);
  const kgb::Task& o = t->overloads[0];
  CHECK(o.entry == "kgb_demo_mix_Scalar");
  CHECK(o.key() == "demo/mix.Scalar");
  CHECK(o.upstream_name == "aten::cat");
  CHECK(o.correctness[2].scalars.at("other").i == 9007199254740993LL);  // exact beyond 2^53
  CHECK(t->entries().size() == 2);
  const std::string glue = kgb::generate_glue(*t);
  CHECK(glue.find("strcmp(key, \"demo/mix.Scalar\")") != std::string::npos);
  CHECK(glue.find("kgb_demo_mix_Scalar(a[0].t, a[1].s, a[2].t, stream)") != std::string::npos);
  CHECK(has(load_error(replace(with_overload, R"({"name": "z", "dims": {"N": 0}, "scalars": {"other": {"i": "9007199254740993"}}})", R"({"name": "z", "dims": {"N": 1}, "scalars": {"other": 1}, "extra": 1})")),
            "overloads[0].correctness[2].extra': unknown key"));
  const std::string two_cases = replace(with_overload, R"(,
                                   {"name": "z", "dims": {"N": 0}, "scalars": {"other": {"i": "9007199254740993"}}})", "");
  CHECK(has(load_error(two_cases), "overloads[0].correctness': an overload needs at least 3 correctness cases"));
}

TEST_CASE("the glue casts every argument kind to its C type") {
  const std::string spec = R"({
    "id": "demo/mix", "summary": "s", "description": "d",
    "params": [
      {"name": "x", "tensor": "input", "dtype": "f32", "shape": ["N"], "optional": true},
      {"name": "dim", "scalar": "int64", "optional": true},
      {"name": "eps", "scalar": "float64", "optional": true},
      {"name": "s", "scalar": "scalar", "optional": true},
      {"name": "keep", "scalar": "bool"},
      {"name": "result", "scalar_output": "scalar"}
    ],
    "correctness": [{"name": "a", "dims": {"N": 2}, "scalars": {"dim": 1, "eps": 0.5, "s": 2, "keep": true}},
                    {"name": "b", "dims": {"N": 2}, "shapes": {"x": null}, "scalars": {"dim": null, "eps": null, "s": null, "keep": false}}],
    "performance": [], "timing": "none"})";
  SpecFolder f;
  auto t = kgb::load_task_file(f.write(spec));
  REQUIRE_MESSAGE(t.ok(), (t.ok() ? "" : t.error().message));
  CHECK(kgb::entry_declaration(*t) ==
        "extern \"C\" int kgb_demo_mix(const kgb_tensor* x, const int64_t* dim, const double* eps, const kgb_scalar* s, int keep, "
        "kgb_scalar* result, kgb_stream stream);");
  const std::string glue = kgb::generate_glue(*t);
  CHECK(glue.find("kgb_demo_mix(a[0].t, (const int64_t*)a[1].opt, (const double*)a[2].opt, (const kgb_scalar*)a[3].opt, (int)a[4].i, a[5].out, stream)") !=
        std::string::npos);
}

TEST_CASE("the determinism check compares an aliased view-or-copy output by its descriptor, not its untouched memory") {
  kgb::CaseOutputs first, second;
  // The pre-allocated out of an alias case holds each call's own poison.
  kgb::HostTensor poison_a = kgb::HostTensor::contiguous(kgb::DType::F32, {2, 3}), poison_b = poison_a;
  std::fill(poison_a.storage().begin(), poison_a.storage().end(), std::byte{0xA5});
  std::fill(poison_b.storage().begin(), poison_b.storage().end(), std::byte{0x5A});
  first.tensors.emplace("out", poison_a);
  second.tensors.emplace("out", poison_b);
  kgb::ViewObservation alias;
  alias.where = kgb::ViewObservation::Where::Alias;
  alias.alias_param = 0;
  alias.view = {{2, 3}, {3, 1}, 4};
  first.observed_views["out"] = alias;
  second.observed_views["out"] = alias;
  std::string what;
  CHECK(kgb::same_outputs(first, second, what));

  // An alias that moves between calls still differs.
  second.observed_views["out"].view.storage_offset = 5;
  CHECK_FALSE(kgb::same_outputs(first, second, what));
  CHECK(what == "view 'out'");

  // On the copy path (descriptor unchanged) the memory is the output: compared.
  kgb::ViewObservation copy;
  first.observed_views["out"] = copy;
  second.observed_views["out"] = copy;
  CHECK_FALSE(kgb::same_outputs(first, second, what));
  CHECK(what == "output 'out'");
}
