// `candidate --replay REQUESTS RESPONSES`: a runner serves a recorded request
// stream (Hello, Jobs, Bye) from a file instead of the parent's pipe and
// writes its responses to a file. The profile tool uses it to run a
// candidate under a program that starts it itself (valgrind, perf, ncu,
// compute-sanitizer, oclgrind, qemu), keeping the runner unchanged otherwise.
#pragma once

namespace kgb::runner {

enum class LaunchMode { Serve, Replay, Error };

// Reads main()'s arguments: no arguments = serve the parent's pipes;
// `--replay IN OUT` = put IN on the request descriptor and OUT (created or
// truncated) on the response descriptor. Anything else prints a usage line
// and answers Error.
LaunchMode launch_mode(int argc, char** argv, const char* runner_name);

}  // namespace kgb::runner
