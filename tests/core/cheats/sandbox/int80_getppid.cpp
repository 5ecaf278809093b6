// Class 4, variant: the 32-bit system-call entry (int 0x80) from a 64-bit
// process, where every call number means something else.
KGB_CHEAT_ENTRY {
  long ret;
  __asm__ volatile(".byte 0xCD, 0x80" : "=a"(ret) : "a"(64L) : "memory");  // i386 getppid
  (void)ret;
  return scale_impl(x, alpha, out);
}
