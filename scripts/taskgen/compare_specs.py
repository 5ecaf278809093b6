#!/usr/bin/env python3
"""Writes benchmark/tasks/aten/{eq,gt,le}/spec.json.

ATen's three comparison tasks differ only in the relation, so their specs
(description, cases, dtypes) come from this one table; each emitted spec is a
complete, standalone file. The solutions come from binary_pointwise.py.

Usage: scripts/taskgen/compare_specs.py
"""
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

RELATIONS = {
    "eq": ("==", "self is equal to other", "Computes element-wise equality (torch.eq)",
           "NaN compares unequal to everything, NaN included; +inf == +inf; -0.0 == +0.0."),
    "gt": (">", "self is greater than other", "Computes element-wise self > other (torch.gt)",
           "Any comparison with NaN is false; +inf > every finite value; -0.0 > +0.0 is false (they are equal)."),
    "le": ("<=", "self is less than or equal to other", "Computes element-wise self <= other (torch.le)",
           "Any comparison with NaN is false (NaN <= NaN is false); -inf <= everything that is not NaN; -0.0 <= +0.0 is true."),
}

DTYPES = ["f32", "f64", "f16", "bf16", "i32", "i64", "bool"]
MIXED = [("i32", "f32"), ("f16", "f32"), ("i64", "bf16"), ("bf16", "f16"), ("bool", "i32"), ("f64", "i64"), ("i32", "i64")]
SAME = [{"T": d, "U": d} for d in DTYPES]
MIX = [{"T": t, "U": u} for t, u in MIXED]


def pairs(*names):
    return [{"T": t, "U": u} for t, u in names]


LAYOUT_TEXT = (
    "Layouts: every tensor is a strided view: element (i0,...,ik) of a tensor t lives at "
    "((T*)t->data)[i0*t->strides[0] + ... + ik*t->strides[k]], strides counted in elements. Inputs can be "
    "transposed, padded (row pitch larger than the row), every-other-element views, start at an offset inside "
    "their allocation, or have stride 0 in a dimension (an expanded view). out can also be non-contiguous "
    "(padded, transposed); write exactly the elements of the out view and nothing else. out never overlaps an "
    "input.\n\n"
    "Empty tensors (a dimension of size 0) are valid: write nothing and return 0. Return 1 (KGB_ERR_UNSUPPORTED) "
    "for a dtype outside the lists above.")

BROADCAST_TEXT = (
    "Broadcasting: the shapes of self and other are aligned at their last dimension (right-aligned); a missing "
    "leading dimension counts as size 1. For every dimension of out, each input either has the same size as out "
    "or size 1, and a size-1 input dimension is repeated along it. out already has the broadcast shape "
    "(out.rank = max(self.rank, other.rank)); a rank-0 tensor is a single value. Example: self [2,3,1,5] and "
    "other [3,4,1] give out [2,3,4,5], with out[a,b,c,d] = (self[a,b,0,d] OP other[b,c,0]).")

PROMOTION_TEXT = (
    "Type promotion (ATen's, as torch.result_type(self, other)): the comparison runs in a common dtype. Between "
    "two dimensioned tensors (rank >= 1), or two rank-0 tensors, it is torch.promote_types(T, U): equal dtypes "
    "stay; bool with any dtype gives the other; i32 with i64 gives i64; bool or an integer with a float gives "
    "that float; f16 with bf16 gives f32; f16 or bf16 with f32 gives f32; any float with f64 gives f64. When "
    "exactly one operand is rank-0, it only counts if its category (bool < integer < float) is higher than the "
    "dimensioned one's: an f16 [5,7] tensor against an f32 rank-0 tensor compares in f16, an i32 tensor against "
    "an f32 rank-0 tensor in f32, an i32 tensor against an i64 rank-0 tensor in i32. Each operand is converted to "
    "the common dtype first (an integer converted to f16 or bf16 rounds to nearest even; bool is 0 or 1), then "
    "the converted values are compared exactly: widening both to float (for f16, bf16, f32) or double (f64), or "
    "to int64 for integer and bool, gives the exact comparison.")


def description(op, overload):
    symbol, words, _, specials = RELATIONS[op]
    head = ("Implement PyTorch's %s.Tensor into a pre-allocated bool output: out = (self %s other) elementwise, "
            "i.e. 1 where %s and 0 elsewhere, with PyTorch broadcasting and type promotion.\n\n" % (op, symbol, words))
    if overload == "Scalar":
        head = ("Implement PyTorch's %s.Scalar into a pre-allocated bool output: out = (self %s other) "
                "elementwise, where other is one ATen Scalar (a number), i.e. 1 where %s and 0 elsewhere.\n\n"
                % (op, symbol, words))
        body = (
            "other is a kgb_scalar: dtype KGB_BOOL or KGB_I64 (value in other.v.i) or KGB_F64 (value in "
            "other.v.f). Type promotion (ATen's, as torch.result_type(self, other)): the comparison runs in self's "
            "dtype T, except that a float Scalar with a bool or integer self runs in f32 (the default float dtype), "
            "and an integer Scalar with a bool self in i64. self's elements are converted to that common dtype. The "
            "Scalar is converted directly into the computation type: double for f64; float for f32, f16 and bf16 "
            "(as ATen's CUDA kernels read a scalar operand: it is not rounded to 16 bits first); int64 for integer "
            "and bool. The scalars of the tests are exactly representable in every dtype.\n\n"
            "Dtypes: self has dtype T, one of f32, f64, f16 (IEEE binary16 stored as uint16_t), bf16 (bfloat16 "
            "stored as uint16_t, the upper half of a float), i32, i64, bool (one byte, 0 or 1); out is bool (one "
            "byte per element, store 0 or 1). Check self->dtype and handle every one of them in this one entry "
            "point.\n\n"
            "Special values: " + specials + "\n\n" + LAYOUT_TEXT.replace("Inputs can", "self can"))
    else:
        body = (
            BROADCAST_TEXT.replace("OP", symbol) + "\n\n" + PROMOTION_TEXT + "\n\n"
            "Dtypes: self has dtype T and other dtype U, each one of f32, f64, f16 (IEEE binary16 stored as "
            "uint16_t), bf16 (bfloat16 stored as uint16_t, the upper half of a float), i32, i64, bool (one byte, 0 "
            "or 1); the tests use every equal pair and the mixed pairs (i32, f32), (f16, f32), (i64, bf16), "
            "(bf16, f16), (bool, i32), (f64, i64), (i32, i64). out is bool (one byte per element, store 0 or 1). Check the "
            "dtypes and handle every combination in this one entry point.\n\n"
            "Special values: " + specials + "\n\n" + LAYOUT_TEXT)
    return head + body


# Integers in [-3, 3] (many ties) with 5% NaN/+-inf on floating tensors of 8+ elements: the
# references register these generators.
def dist(op, param):
    return {"kind": "custom", "generator": "aten/%s/%s" % (op, param)}


def tensor_spec(op):
    summary = RELATIONS[op][2]
    cases = [
        {"name": "same_shape_odd", "dims": {"M": 7, "N": 33}},
        {"name": "row_broadcast", "dims": {"M": 13, "N": 37}, "shapes": {"other": ["N"]}, "dtypes": SAME},
        {"name": "outer_broadcast", "dims": {"M": 11, "N": 29}, "shapes": {"self": ["M", 1], "other": [1, "N"]},
         "dtypes": MIX},
        {"name": "rank0_other_lower_category", "dims": {"M": 5, "N": 7}, "shapes": {"other": []},
         "dtypes": pairs(("f16", "f32"), ("i32", "f32"), ("i32", "i64"), ("bool", "i32"))},
        {"name": "rank0_both", "shapes": {"self": [], "other": [], "out": []},
         "dtypes": pairs(("f32", "f32"), ("i64", "i64"), ("f16", "f32"))},
        {"name": "size1", "shapes": {"self": [1], "other": [1], "out": [1]}, "dtypes": pairs(("bf16", "bf16"), ("f64", "i64"))},
        {"name": "empty", "dims": {"M": 0, "N": 16}, "shapes": {"other": ["N"]}, "dtypes": pairs(("f32", "f32"), ("i32", "f32"))},
        {"name": "grid_20x320x15", "shapes": {"self": [20, 320, 15], "other": [20, 320, 15], "out": [20, 320, 15]},
         "dtypes": pairs(("f32", "f32"), ("f16", "f16"), ("bf16", "f16"))},
        {"name": "grid_16x7x57x32x29_bcast", "shapes": {"self": [16, 7, 57, 32, 29], "other": [57, 1, 29],
                                                        "out": [16, 7, 57, 32, 29]}, "dtypes": pairs(("f32", "f32"))},
        {"name": "transposed_and_padded_inputs", "dims": {"M": 19, "N": 23},
         "layouts": {"self": {"kind": "transposed"}, "other": {"kind": "contiguous", "pad": 3}},
         "dtypes": pairs(("f32", "f32"), ("i64", "i64"), ("f16", "f32"))},
        {"name": "step_other_padded_out", "dims": {"M": 9, "N": 31},
         "layouts": {"other": {"kind": "step", "step": 2}, "out": {"kind": "contiguous", "pad": 5}},
         "dtypes": pairs(("bf16", "bf16"), ("i32", "f32"))},
        {"name": "transposed_out", "dims": {"M": 17, "N": 10}, "shapes": {"self": ["M", 1], "other": ["N"]},
         "layouts": {"out": {"kind": "transposed"}}, "dtypes": pairs(("f64", "f64"), ("bool", "bool"))},
        {"name": "stride0_self_offsets", "dims": {"M": 6, "N": 40},
         "layouts": {"self": {"kind": "strides", "strides": [0, 1], "offset": 3}, "other": {"kind": "contiguous", "offset": 5}},
         "dtypes": pairs(("i32", "i32"), ("f16", "f16"), ("i64", "bf16"))},
        {"name": "rank4_two_sided", "shapes": {"self": [2, 3, 1, 5], "other": [3, 4, 1], "out": [2, 3, 4, 5]},
         "dtypes": pairs(("f32", "f32"), ("bf16", "f16"))},
    ]
    perf = [
        {"name": "1024x1024", "cpu": True, "dims": {"M": 1024, "N": 1024}, "dtypes": pairs(("f32", "f32"))},
        {"name": "16x128x64x60", "cpu": True, "shapes": {"self": [16, 128, 64, 60], "other": [16, 128, 64, 60],
                                                        "out": [16, 128, 64, 60]}, "dtypes": pairs(("bf16", "bf16"))},
        {"name": "8192x8192", "dims": {"M": 8192, "N": 8192}, "dtypes": pairs(("f32", "f32"))},
    ]
    scalar_cases = [
        {"name": "int_scalar", "dims": {"M": 7, "N": 33}, "scalars": {"other": 2}},
        {"name": "float_scalar_promotes_ints", "dims": {"M": 13, "N": 37}, "scalars": {"other": -1.5},
         "dtypes": ["i32", "i64", "bool", "f32", "f16"]},
        {"name": "integral_float_scalar", "dims": {"M": 9, "N": 20}, "scalars": {"other": 3.0},
         "dtypes": ["i32", "bf16", "f64"]},
        {"name": "bool_scalar", "dims": {"M": 5, "N": 64}, "scalars": {"other": True}, "dtypes": ["bool", "i32", "f32"]},
        {"name": "rank0_self", "shapes": {"self": [], "out": []}, "scalars": {"other": 0}, "dtypes": ["f32", "i64"]},
        {"name": "size1", "shapes": {"self": [1], "out": [1]}, "scalars": {"other": 1}, "dtypes": ["f16", "i32"]},
        {"name": "empty", "dims": {"M": 3, "N": 0}, "scalars": {"other": 1}, "dtypes": ["f32"]},
        {"name": "transposed_self_offset_padded_out", "dims": {"M": 21, "N": 17}, "scalars": {"other": 0.5},
         "layouts": {"self": {"kind": "transposed", "offset": 4}, "out": {"kind": "contiguous", "pad": 3}},
         "dtypes": ["f32", "bf16", "f64"]},
        {"name": "grid_20x320x15_stepped", "shapes": {"self": [20, 320, 15], "out": [20, 320, 15]}, "scalars": {"other": -2},
         "layouts": {"self": {"kind": "step", "step": 2}}, "dtypes": ["f16", "i64"]},
    ]
    # An overload shares the task's type variables: its cases name U too (unused by the Scalar entry).
    for c in scalar_cases:
        c["dtypes"] = [{"T": d, "U": d} for d in c.get("dtypes", DTYPES)]
    scalar_perf = [
        {"name": "16x128x64x60", "cpu": True, "shapes": {"self": [16, 128, 64, 60], "out": [16, 128, 64, 60]},
         "scalars": {"other": 0.5}, "dtypes": ["f32"]},
        {"name": "8192x8192", "dims": {"M": 8192, "N": 8192}, "scalars": {"other": 0.5}, "dtypes": ["bf16"]},
    ]
    for c in scalar_perf:
        c["dtypes"] = [{"T": d, "U": d} for d in c["dtypes"]]
    return {
        "id": "aten/" + op,
        "upstream_name": "aten::" + op,
        "overload": "Tensor",
        "summary": summary + " into a bool tensor, with broadcasting and type promotion",
        "description": description(op, "Tensor"),
        "type_variables": {"T": DTYPES, "U": DTYPES},
        "dtype_combinations": SAME + MIX,
        "params": [
            {"name": "self", "tensor": "input", "dtype": "T", "shape": ["M", "N"], "dist": dist(op, "self")},
            {"name": "other", "tensor": "input", "dtype": "U", "shape": ["M", "N"], "dist": dist(op, "other")},
            {"name": "out", "tensor": "output", "dtype": "bool", "shape": ["M", "N"]},
        ],
        "correctness": cases,
        "performance": perf,
        "overloads": [{
            "name": "Scalar",
            "description": description(op, "Scalar"),
            "params": [
                {"name": "self", "tensor": "input", "dtype": "T", "shape": ["M", "N"], "dist": dist(op, "self")},
                {"name": "other", "scalar": "scalar",
                 "description": "an ATen Scalar: KGB_BOOL or KGB_I64 (v.i) or KGB_F64 (v.f)"},
                {"name": "out", "tensor": "output", "dtype": "bool", "shape": ["M", "N"]},
            ],
            "correctness": scalar_cases,
            "performance": scalar_perf,
            "flops": "numel(out)",
            "bytes": "numel(self) * elem(T) + numel(out)",
        }],
        "check": "elementwise",
        "deterministic": True,
        "flops": "numel(out)",
        "bytes": "numel(self) * elem(T) + numel(other) * elem(U) + numel(out)",
        "banned_apis": ["at::", "torch::", "c10::"],
        "baseline": "aten",
    }


def dump(spec):
    """Top-level keys one per line, one case or parameter per line."""
    def block(key, items, indent):
        inner = (",\n" + " " * (indent + 2)).join(json.dumps(i) for i in items)
        return '%s"%s": [\n%s%s\n%s]' % (" " * indent, key, " " * (indent + 2), inner, " " * indent)

    def obj(o, indent):
        lines = []
        for k, v in o.items():
            if k in ("params", "correctness", "performance") and isinstance(v, list):
                lines.append(block(k, v, indent + 2))
            elif k == "overloads":
                lines.append('%s"overloads": [\n%s\n%s]' % (" " * (indent + 2), ",\n".join(
                    " " * (indent + 4) + obj(x, indent + 4) for x in v), " " * (indent + 2)))
            else:
                lines.append('%s"%s": %s' % (" " * (indent + 2), k, json.dumps(v)))
        return "{\n" + ",\n".join(lines) + "\n" + " " * indent + "}"
    return obj(spec, 0) + "\n"


if __name__ == "__main__":
    for op in RELATIONS:
        folder = os.path.join(ROOT, "benchmark", "tasks", "aten", op)
        os.makedirs(folder, exist_ok=True)
        spec = tensor_spec(op)
        json.loads(dump(spec))
        with open(os.path.join(folder, "spec.json"), "w") as f:
            f.write(dump(spec))
        print("wrote", os.path.join(folder, "spec.json"))
