// The `--json` contract of every command: standard output is exactly one JSON
// document, on success and on failure. While a command runs, file descriptor 1
// points at an in-memory file (so nothing — not a progress line, not a child
// process — can put stray text on the real stdout) and std::cerr is teed into
// a buffer. At the end the command's document is copied to the real stdout;
// a command that failed without printing one gets an error document built
// from its "error: ..." lines.
#pragma once

#include <memory>
#include <string>

namespace kgb::cli {

class JsonStdout {
 public:
  // True when the arguments ask for --json (and not for --help).
  static bool requested(int argc, char** argv);

  JsonStdout();  // redirects; throws std::runtime_error when the OS refuses
  ~JsonStdout();
  JsonStdout(const JsonStdout&) = delete;
  JsonStdout& operator=(const JsonStdout&) = delete;

  // Restores stdout and writes the document; returns the exit code to use.
  int finish(int exit_code);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The error document written for a failed command that printed none.
std::string json_error_document(int exit_code, const std::string& stderr_text);

}  // namespace kgb::cli
