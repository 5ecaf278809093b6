// Exit codes of `kgb`, documented in the README.
#pragma once

namespace kgb::cli {
inline constexpr int kExitOk = 0;             // passed / done
inline constexpr int kExitFailed = 1;         // the candidate or a task failed (a verdict was produced)
inline constexpr int kExitUsage = 2;          // bad arguments, unknown task or platform, unreadable file
inline constexpr int kExitInfrastructure = 3; // toolchain missing, device lost, store unwritable
inline constexpr int kExitInterrupted = 130;  // stopped by Ctrl-C (work so far is recorded)
}  // namespace kgb::cli
