// Timing that trusts the candidate's process, variant on OpenCL: the
// profiling-event figures the runner computed, rewritten in its memory. The
// host entry enqueues honest device work on the harness's queue, then finds
// the runner's record of the timed calls (event times and host times, see
// recorded_times_rewrite.inc) and divides the previous call's figures by 4.
// Appended to the bundled blas/saxpy OpenCL solution, whose entry is renamed
// honest_saxpy.
// kgb-cheat-include: recorded_times_rewrite.inc

extern "C" int kgb_blas_saxpy(double alpha, const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  forge_recorded_times();
  return honest_saxpy(alpha, x, y, stream);
}
