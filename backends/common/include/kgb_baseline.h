// Baselines: vendor or plain implementations timed against candidates in the
// same way (they run inside a prebuilt runner, through the uniform call).
//
// A baseline is a function with the task entry's own C signature, registered
// with the entry's generated type (kgb_entries/<source>/<name>.h, made from
// the task's spec; each baseline file includes the header of its own task):
//
//   #include "kgb_entries/blas/saxpy.h"
//   int saxpy_openblas(double alpha, const kgb_tensor* x, kgb_tensor* y, kgb_stream stream);
//   KGB_BASELINE(blas_saxpy, "openblas", saxpy_openblas);
//
// A spec whose parameters change makes the registration fail to compile
// instead of a baseline reading the wrong argument. ATen tasks need no
// baseline code at all: the runners fall back to the operator named by the
// task's upstream_name, called through libtorch's dispatcher (aten_dispatch.h).
#pragma once

#include <string>

#include "kgb_runner_abi.h"

namespace kgb {

struct BaselineEntry {
  kgb_invoke_fn invoke = nullptr;
  const char* kind = "";  // "aten", "openblas", "cublas", "clblast", "plain (written here)"
};

void register_baseline(const char* key, const char* kind, kgb_invoke_fn fn);
const BaselineEntry* find_baseline(const std::string& key);

struct BaselineRegistrar {
  BaselineRegistrar(const char* key, const char* kind, kgb_invoke_fn fn) { register_baseline(key, kind, fn); }
};

}  // namespace kgb

#define KGB_BASELINE_CONCAT_INNER(a, b) a##b
#define KGB_BASELINE_CONCAT(a, b) KGB_BASELINE_CONCAT_INNER(a, b)
// KGB_BASELINE(aten_softmax, "aten", softmax_via_aten): `entry` names a type
// of kgb::entries (the entry's C name without "kgb_").
#define KGB_BASELINE(entry, kind, fn)                                                 \
  static const ::kgb::BaselineRegistrar KGB_BASELINE_CONCAT(kgb_baseline_registrar_, \
                                                            __LINE__)(::kgb::entries::entry::key, kind, \
                                                                      &::kgb::entries::entry::template invoke<fn>)
