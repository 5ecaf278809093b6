#include "json_stdout.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <streambuf>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "exit_codes.h"

namespace kgb::cli {

namespace {

// Writes through to the original stream and keeps the last `limit` bytes.
class TeeBuffer : public std::streambuf {
 public:
  TeeBuffer(std::streambuf* target, size_t limit) : target_(target), limit_(limit) {}
  const std::string& text() const { return kept_; }

 protected:
  int overflow(int ch) override {
    if (ch == traits_type::eof()) return traits_type::not_eof(ch);
    const char c = static_cast<char>(ch);
    keep(&c, 1);
    return target_->sputc(c);
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    keep(s, static_cast<size_t>(n));
    return target_->sputn(s, n);
  }
  int sync() override { return target_->pubsync(); }

 private:
  void keep(const char* s, size_t n) {
    kept_.append(s, n);
    if (kept_.size() > 2 * limit_) kept_.erase(0, kept_.size() - limit_);
  }
  std::streambuf* target_;
  size_t limit_;
  std::string kept_;
};

std::string_view exit_kind(int code) {
  switch (code) {
    case kExitFailed: return "failed";
    case kExitUsage: return "usage";
    case kExitInfrastructure: return "infrastructure";
    case kExitInterrupted: return "interrupted";
    default: return "error";
  }
}

bool write_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

std::string json_error_document(int exit_code, const std::string& stderr_text) {
  // The lines that say what went wrong: "error: ..." where the command wrote
  // some, else the last few lines it wrote.
  std::istringstream lines(stderr_text);
  std::string line, errors;
  std::vector<std::string> tail;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    tail.push_back(line);
    if (tail.size() > 8) tail.erase(tail.begin());
    const auto at = line.find("error: ");
    if (at != std::string::npos && at < 16) {
      if (!errors.empty()) errors += "\n";
      errors += line.substr(at + 7);
    }
  }
  std::string message = errors;
  if (message.empty())
    for (const auto& t : tail) message += (message.empty() ? "" : "\n") + t;
  if (message.empty()) message = "exited with code " + std::to_string(exit_code);
  nlohmann::json doc = {{"error", {{"exit_code", exit_code}, {"kind", exit_kind(exit_code)}, {"message", message}}}};
  return doc.dump(2) + "\n";
}

bool JsonStdout::requested(int argc, char** argv) {
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--") break;
    if (a == "--help" || a == "-h") return false;
    if (a == "--json") json = true;
  }
  return json;
}

struct JsonStdout::Impl {
  int saved_stdout = -1;
  int capture = -1;
  std::streambuf* saved_cerr = nullptr;
  std::unique_ptr<TeeBuffer> tee;
  bool finished = false;
};

JsonStdout::JsonStdout() : impl_(std::make_unique<Impl>()) {
  std::cout.flush();
  std::fflush(stdout);
  impl_->capture = ::memfd_create("kgb-json-stdout", MFD_CLOEXEC);
  if (impl_->capture < 0) throw std::runtime_error(std::string("memfd_create: ") + std::strerror(errno));
  impl_->saved_stdout = ::fcntl(1, F_DUPFD_CLOEXEC, 3);
  if (impl_->saved_stdout < 0 || ::dup2(impl_->capture, 1) < 0)
    throw std::runtime_error(std::string("redirecting stdout: ") + std::strerror(errno));
  impl_->saved_cerr = std::cerr.rdbuf();
  impl_->tee = std::make_unique<TeeBuffer>(impl_->saved_cerr, 64 * 1024);
  std::cerr.rdbuf(impl_->tee.get());
}

JsonStdout::~JsonStdout() {
  if (!impl_->finished) finish(kExitInfrastructure);
}

int JsonStdout::finish(int exit_code) {
  if (impl_->finished) return exit_code;
  impl_->finished = true;
  std::cout.flush();
  std::fflush(stdout);
  std::cerr.flush();
  std::cerr.rdbuf(impl_->saved_cerr);

  std::string captured;
  if (::lseek(impl_->capture, 0, SEEK_SET) == 0) {
    char buffer[65536];
    ssize_t n;
    while ((n = ::read(impl_->capture, buffer, sizeof buffer)) > 0) captured.append(buffer, static_cast<size_t>(n));
  }
  ::dup2(impl_->saved_stdout, 1);
  ::close(impl_->saved_stdout);
  ::close(impl_->capture);

  const bool blank = captured.find_first_not_of(" \t\r\n") == std::string::npos;
  if (blank) {
    // Success without a document should not happen; say so rather than print nothing.
    const int code = exit_code == kExitOk ? kExitInfrastructure : exit_code;
    const std::string stderr_text =
        exit_code == kExitOk ? "error: the command printed no JSON document" : impl_->tee->text();
    write_all(1, json_error_document(code, stderr_text));
    return code;
  }
  if (nlohmann::json::parse(captured, nullptr, /*allow_exceptions=*/false).is_discarded()) {
    // A bug in a command: pass its text on unchanged, and say so on stderr.
    std::cerr << "kgb: --json: standard output is not one JSON document (a bug; please report it)\n";
    write_all(1, captured);
    return exit_code == kExitOk ? kExitInfrastructure : exit_code;
  }
  write_all(1, captured);
  return exit_code;
}

}  // namespace kgb::cli
