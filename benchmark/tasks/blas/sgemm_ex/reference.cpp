// Reference for blas/sgemm_ex (cublasSgemmEx): C = alpha * op(A) * op(B) +
// beta * C with A and B of one storage type (f32, f16, bf16 or i8) and C of
// f32, f16 or bf16, column-major cuBLAS semantics on logical [row, col]
// indices. The inputs are read exactly as doubles, the products accumulated
// in fp64 (blas_reference.h's gemm_batch, with the BLAS rules: beta == 0 never
// reads C, alpha == 0 never reads A or B, k == 0 gives beta * C) and the
// result rounded once into C's dtype, as a float-compute kernel rounds its
// float result once.
//
// The generator of A and B: standard normal values for the float dtypes
// (rounded to 16 bits by the tensor's store), uniform integers over the whole
// int8 range [-128, 127] for i8, so the extreme products (-128 * -128) occur.
#include <cstdint>
#include <random>

#include "../blas_reference.h"
#include "kgb/random.h"
#include "kgb/reference.h"

namespace {

namespace br = kgb::blas_reference;

void sgemm_ex_reference(kgb::RefArgs& args) {
  const int64_t transa = args.int_scalar("transa"), transb = args.int_scalar("transb");
  const double alpha = args.scalar("alpha"), beta = args.scalar("beta");
  const kgb::HostTensor& a = args.tensor("A");
  const kgb::HostTensor& b = args.tensor("B");
  kgb::HostTensor& c = args.tensor("C");
  if (a.dtype() != b.dtype()) throw std::runtime_error("blas/sgemm_ex: A and B must share one dtype");
  const auto d = br::gemm_dims(a, transa, b, transb, c, "blas/sgemm_ex");
  const auto result = br::gemm_batch(d[0], d[1], d[2], alpha, beta, {br::gemm_operands(a, transa, b, transb, c, alpha, beta)});
  kgb::from_doubles(c, result.front());
}

void operand_values(kgb::GeneratorArgs& g) {
  const int64_t n = g.tensor.numel();
  if (g.tensor.dtype() == kgb::DType::I8) {
    std::uniform_int_distribution<int64_t> full_range(-128, 127);
    for (int64_t i = 0; i < n; ++i) g.tensor.set_int(i, full_range(g.rng));
  } else {
    for (int64_t i = 0; i < n; ++i) g.tensor.set(i, kgb::standard_normal(g.rng));
  }
}

}  // namespace

KGB_REGISTER_REFERENCE("blas/sgemm_ex", sgemm_ex_reference);
KGB_REGISTER_GENERATOR("blas/sgemm_ex/A", operand_values);
KGB_REGISTER_GENERATOR("blas/sgemm_ex/B", operand_values);
