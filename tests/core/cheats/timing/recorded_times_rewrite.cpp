// Timing that trusts the candidate's process, variant: the recorded
// measurements. The runner keeps the per-call times in its own memory until
// the block's reply is sent; the kernel walks up to them and divides them by
// 4 (see recorded_times_rewrite.inc). The work itself is honest.
// kgb-cheat-include: recorded_times_rewrite.inc

KGB_CHEAT_ENTRY {
  forge_recorded_times();
  return scale_impl(x, alpha, out);
}
