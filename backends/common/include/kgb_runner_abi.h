/* kgb_runner_abi.h: how the prebuilt runner calls a kernel.
 *
 * Every candidate executable is the candidate's object, a small generated glue
 * file and the runner library. The glue adapts the task's own entry point to one
 * uniform call, so the runner never needs to know a task's signature:
 * tensors[i] is set for tensor parameters and scalars[i] for scalar parameters,
 * both indexed in the order of the spec's parameter list. */
#ifndef KGB_RUNNER_ABI_H
#define KGB_RUNNER_ABI_H

#include "kgb_kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef union kgb_scalar_value {
  int64_t i; /* int64 and bool scalars */
  double f;  /* float64 scalars */
} kgb_scalar_value;

typedef int (*kgb_invoke_fn)(kgb_tensor* const* tensors, const kgb_scalar_value* scalars, kgb_stream stream);

/* Defined by the generated glue (candidates) or the baseline registry (the
 * prebuilt baseline runners): the call for a task id, or NULL. */
kgb_invoke_fn kgb_runner_resolve(const char* task_id);

#ifdef __cplusplus
}
#endif

#endif /* KGB_RUNNER_ABI_H */
