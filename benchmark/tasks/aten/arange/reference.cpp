// Reference for aten/arange (arange, .start, .start_step): out[i] = start +
// i * step as ATen's CUDA kernel forms it: start and step converted to the
// accumulation type (float for f16/bf16/f32, double for f64, int64 for the
// integer dtypes), the value computed exactly from those (fp64 here, exact
// int64 for integers) and rounded once into out's dtype. The case's out must
// have ATen's length, ceil((end - start) / step) in double (int64 arithmetic
// for i64), and ATen's dtype (the dtype argument, else i64 for integer
// Scalars and f32 otherwise): a case that disagrees is a task bug.
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "../fill_reference.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

bool integral(const kgb_scalar& s) { return s.dtype == KGB_I64 || s.dtype == KGB_BOOL; }
double as_double(const kgb_scalar& s) { return integral(s) ? static_cast<double>(s.v.i) : s.v.f; }

kgb_scalar int_scalar(int64_t v) {
  kgb_scalar s{};
  s.dtype = KGB_I64;
  s.v.i = v;
  return s;
}

void arange(kgb::RefArgs& args, const kgb_scalar& start, const kgb_scalar& end, const kgb_scalar& step) {
  kgb::HostTensor& out = args.tensor("out");
  const bool all_integral = integral(start) && integral(end) && integral(step);
  kgb::fill::expect_dtype(out, args.has("dtype") ? kgb::fill::dtype_named(args.enum_name("dtype"))
                               : all_integral     ? kgb::DType::I64
                                                  : kgb::DType::F32,
                          "aten/arange");
  if (out.rank() != 1) throw std::runtime_error("aten/arange: out must be rank 1");
  const kgb::DType t = out.dtype();
  const bool integer_out = !kgb::is_floating(t) && !kgb::is_complex(t);
  if (integer_out && !all_integral) throw std::runtime_error("aten/arange: integer cases take integer Scalars");
  if (as_double(step) == 0) throw std::runtime_error("aten/arange: step must be nonzero");
  int64_t length = 0;
  if (t == kgb::DType::I64) {
    const int64_t sgn = (step.v.i > 0) - (step.v.i < 0);
    length = (end.v.i - start.v.i + step.v.i - sgn) / step.v.i;
  } else {
    length = static_cast<int64_t>(std::ceil((as_double(end) - as_double(start)) / as_double(step)));
  }
  if (length < 0) throw std::runtime_error("aten/arange: step has the wrong sign for [start, end)");
  if (out.size(0) != length)
    throw std::runtime_error("aten/arange: out has " + std::to_string(out.size(0)) + " elements, ATen gives " + std::to_string(length));
  if (integer_out) {
    for (int64_t i = 0; i < length; ++i) kgb::fill::store(out, i, int_scalar(start.v.i + step.v.i * i));
    return;
  }
  double first = as_double(start), increment = as_double(step);
  if (t != kgb::DType::F64) {  // float accumulation: the Scalars are rounded to float first
    first = static_cast<float>(first);
    increment = static_cast<float>(increment);
  }
  for (int64_t i = 0; i < length; ++i) out.set(i, first + increment * static_cast<double>(i));
}

void arange_end(kgb::RefArgs& args) { arange(args, int_scalar(0), args.aten_scalar("end"), int_scalar(1)); }
void arange_start(kgb::RefArgs& args) { arange(args, args.aten_scalar("start"), args.aten_scalar("end"), int_scalar(1)); }
void arange_start_step(kgb::RefArgs& args) {
  arange(args, args.aten_scalar("start"), args.aten_scalar("end"), args.aten_scalar("step"));
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/arange", arange_end);
KGB_REGISTER_REFERENCE("aten/arange.start", arange_start);
KGB_REGISTER_REFERENCE("aten/arange.start_step", arange_start_step);
