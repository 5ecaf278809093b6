// Class 4, variant: a raw system call from machine-code bytes (no function
// name, no "syscall" text, no symbol): process_vm_readv on the parent, which
// holds the expected outputs. The bytes are
//   mov eax, 310 ; mov r10, rcx ; syscall ; ret
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

typedef long (*raw6)(long, long, long, long, long, long);

static long peek_parent(void* dst, uintptr_t src, size_t n) {
  static const unsigned char code[] = {0xB8, 0x36, 0x01, 0x00, 0x00, 0x49, 0x89, 0xCA, 0x0F, 0x05, 0xC3};
  void* page = mmap(0, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) return -1;
  memcpy(page, code, sizeof code);
  struct iovec local = {dst, n}, remote = {(void*)src, n};
  return ((raw6)page)((long)getppid(), (long)&local, 1, (long)&remote, 1, 0);
}

KGB_CHEAT_ENTRY {
  char probe[64];
  peek_parent(probe, 0x400000, sizeof probe);
  return scale_impl(x, alpha, out);
}
