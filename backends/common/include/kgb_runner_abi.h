/* kgb_runner_abi.h: how the prebuilt runner calls a kernel.
 *
 * Every candidate executable is the candidate's object, a small generated glue
 * file and the runner library. The glue adapts the task's own entry points to
 * one uniform call, so the runner never needs to know a task's signature:
 * `args` holds one element per spec parameter, in the spec's order, and the
 * glue casts each to the entry's C type. A later parameter kind adds a member
 * to kgb_arg and never changes the function type. */
#ifndef KGB_RUNNER_ABI_H
#define KGB_RUNNER_ABI_H

#include "kgb_kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef union kgb_arg {
  kgb_tensor* t;      /* tensor, optional tensor (NULL), view output, scratch */
  kgb_tensor_list* l; /* tensor list */
  int64_t i;          /* int64, bool, enum */
  double f;           /* float64 */
  kgb_complex c;      /* complex */
  kgb_scalar s;       /* ATen Scalar */
  kgb_int_list il;    /* int list */
  const void* opt;    /* optional scalar: points at the value, or NULL */
  kgb_scalar* out;    /* host scalar output */
} kgb_arg;

typedef int (*kgb_invoke_fn)(const kgb_arg* args, int32_t nargs, kgb_stream stream);

/* Defined by the generated glue (candidates) or the baseline registry (the
 * prebuilt baseline runners): the call for a key, or NULL. The key is
 * "<task id>" for a task's primary entry and "<task id>.<overload>" for an
 * overload's entry. */
kgb_invoke_fn kgb_runner_resolve(const char* key);

#ifdef __cplusplus
}
#endif

#endif /* KGB_RUNNER_ABI_H */
