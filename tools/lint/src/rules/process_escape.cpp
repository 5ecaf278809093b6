// process-escape: a kernel computes outputs from inputs. Starting processes,
// loading code, reading the environment, files, sockets, signals and raw
// syscalls reach outside the evaluation (cached answers, tampering, leaks).
#include <clang/AST/Decl.h>

#include "rules/name_rule.h"
#include "rules/rules.h"

namespace kgb::lint::detail {

NameRuleSpec process_escape_spec(const RuleSetup& setup) {
  NameRuleSpec spec;
  spec.patterns = NamePatterns{
      // processes
      "system", "popen", "pclose", "fork", "vfork", "clone", "clone3", "exec*", "fexecve", "posix_spawn*", "daemon",
      "kill", "ptrace", "prctl", "setrlimit", "prlimit", "prlimit64", "syscall", "std::system",
      // loader and runtime code loading
      "dlopen", "dlmopen", "dlsym", "dlvsym", "dladdr", "dlinfo", "nvrtc*", "cuModuleLoad*", "cuLibraryLoad*",
      "cudaLibraryLoad*", "cuLinkCreate*", "cudaGetDriverEntryPoint*", "cuGetProcAddress*", "hipModuleLoad*",
      "hiprtc*", "clCreateProgramWithBinary", "clCreateProgramWithIL", "clGetExtensionFunctionAddress*",
      // environment
      "getenv", "secure_getenv", "setenv", "putenv", "unsetenv", "clearenv", "environ", "__environ",
      "std::getenv",
      // files and descriptors
      "fopen", "fopen64", "freopen", "freopen64", "fdopen", "tmpfile", "tmpfile64", "tmpnam", "mkstemp*",
      "mkdtemp", "open", "open64", "openat", "openat64", "creat", "creat64", "read", "pread", "pread64", "write",
      "pwrite", "pwrite64", "close", "dup", "dup2", "dup3", "pipe", "pipe2", "ioctl", "fcntl", "remove", "rename",
      "unlink", "unlinkat", "mkdir", "rmdir", "opendir", "readdir", "chdir", "truncate", "ftruncate", "mmap",
      "mmap64", "mprotect", "shm_open", "shmget", "shmat", "memfd_create", "std::basic_ifstream",
      "std::basic_ofstream", "std::basic_fstream", "std::basic_filebuf", "std::filesystem", "cudaIpc*", "cuIpc*",
      "hipIpc*",
      // sockets
      "socket", "socketpair", "connect", "bind", "listen", "accept", "accept4", "send", "sendto", "sendmsg", "recv",
      "recvfrom", "recvmsg", "getaddrinfo", "gethostbyname*",
      // signals and exit hooks
      "signal", "sigaction", "sigprocmask", "pthread_sigmask", "raise", "alarm", "setitimer", "atexit",
      "at_quick_exit", "on_exit", "std::atexit", "std::signal", "std::raise", "setjmp", "longjmp", "_setjmp",
  };
  spec.patterns.add_all(split_list(setup.option("process-escape", "extra", "")));
  spec.asm_markers = {"syscall", "sysenter", "int $0x80", "int 0x80", "svc #", "svc 0", "ecall"};
  spec.what = "a process, loader, environment, file or signal API";
  spec.reason = "a kernel computes its outputs from its inputs and reaches nothing outside the process";
  spec.hint = "remove it; read only the tensors and scalars passed to the entry point";
  return spec;
}

namespace {

class ProcessEscapeRule : public NameRule {
 public:
  using NameRule::NameRule;
  void on_translation_unit(clang::ASTContext&) override {
    // Top-level assembly can define any symbol, syscall stubs included.
    for (const clang::Decl* decl : state_.main_file_decls)
      if (const auto* assembly = llvm::dyn_cast<clang::FileScopeAsmDecl>(decl))
        report(assembly->getBeginLoc(), "top-level assembly (asm at file scope) is not allowed: " + spec_.reason,
               "use C/C++ (or inline assembly inside a function) instead");
  }
};

}  // namespace

std::unique_ptr<Rule> create_process_escape(const RuleInfo& info, PassState& state) {
  return std::make_unique<ProcessEscapeRule>(info, state, process_escape_spec(state.setup));
}

}  // namespace kgb::lint::detail
