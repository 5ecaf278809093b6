// Timing that trusts the candidate's process, variant: the standard
// library's clock. The runner reads std::chrono::steady_clock::now(), a
// function of libstdc++ called through a C++ symbol; a definition of that
// symbol in the candidate takes its place once everything is linked into one
// program. This one returns the time-stamp counter divided by 16 as
// nanoseconds (the counter read through its opcode bytes), so every interval
// the runner measures shrinks several-fold while the work stays the same.
long long forged_steady_clock_now() __asm__("_ZNSt6chrono3_V212steady_clock3nowEv");
long long forged_steady_clock_now() {
  unsigned lo = 0, hi = 0;
  __asm__ __volatile__(".byte 0x0f, 0x31" : "=a"(lo), "=d"(hi));
  return (long long)((((unsigned long long)hi << 32) | lo) / 16);
}

KGB_CHEAT_ENTRY { return scale_impl(x, alpha, out); }
