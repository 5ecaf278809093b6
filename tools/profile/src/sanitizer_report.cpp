// Parser for compute-sanitizer reports. Every report line carries the
// "========= " prefix; an error starts with an unindented message and goes
// on with indented detail lines:
//   ========= Invalid __global__ write of size 4 bytes
//   =========     at scale(float *, int)+0x90 in /work/candidate.cu:12
//   =========     by thread (32,0,0) in block (0,0,0)
//   =========     Address 0x7f3c1e000080 is out of bounds
//   =========     Saved host backtrace up to driver entry point at kernel launch time
//   =========         Host Frame: ...
//   ========= Program hit cudaErrorLaunchFailure (error 719) due to "unspecified launch failure" on CUDA API call to ...
//   ========= ERROR SUMMARY: 2 errors
// Reports of the same error in the same place (one per faulting thread)
// are folded into one finding with a count.
#include <cstdlib>
#include <map>
#include <sstream>

#include "kgb/profile.h"

namespace kgb::profile {
namespace {

struct Block {
  std::string message;  // first line
  std::string where;    // "at ..." without the location
  std::string location; // file:line when present
  std::string thread;   // "by thread (..) in block (..)"
  std::string address;  // "Address ... is out of bounds" and similar
};

std::string trim(std::string s) {
  size_t b = s.find_first_not_of(" \t\r");
  size_t e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// Strips the sanitizer prefix ("========= "); false for lines without it.
bool strip_prefix(const std::string& line, std::string& rest) {
  size_t n = 0;
  while (n < line.size() && line[n] == '=') ++n;
  if (n < 3) return false;
  rest = line.substr(n);
  if (!rest.empty() && rest[0] == ' ') rest.erase(0, 1);
  return true;
}

bool is_noise(const std::string& message) {
  static const char* noise[] = {"COMPUTE-SANITIZER", "ERROR SUMMARY", "LEAK SUMMARY", "Target application returned", "No errors"};
  for (const char* n : noise)
    if (message.rfind(n, 0) == 0) return true;
  return message.empty();
}

}  // namespace

SanitizerReport parse_sanitizer_output(std::string_view text, std::string_view tool) {
  SanitizerReport report;
  std::vector<Block> blocks;
  bool in_block = false, in_backtrace = false;
  std::istringstream in{std::string(text)};
  std::string line, rest;
  while (std::getline(in, line)) {
    if (!strip_prefix(line, rest)) continue;
    if (rest.rfind("ERROR SUMMARY:", 0) == 0) {
      report.summary_seen = true;
      report.error_count = std::atoll(rest.c_str() + 14);
      in_block = false;
      continue;
    }
    const bool indented = !rest.empty() && (rest[0] == ' ' || rest[0] == '\t');
    if (!indented) {
      std::string message = trim(rest);
      in_block = !is_noise(message);
      in_backtrace = false;
      if (in_block) blocks.push_back(Block{message, "", "", "", ""});
      continue;
    }
    if (!in_block) continue;
    std::string detail = trim(rest);
    Block& b = blocks.back();
    if (detail.rfind("Saved host backtrace", 0) == 0 || detail.rfind("Host Frame", 0) == 0 ||
        detail.rfind("Device Frame", 0) == 0) {
      in_backtrace = true;
      continue;
    }
    if (in_backtrace) continue;
    if (detail.rfind("at ", 0) == 0 && b.where.empty()) {
      std::string at = detail.substr(3);
      size_t in_pos = at.rfind(" in ");
      if (in_pos != std::string::npos) {
        b.location = at.substr(in_pos + 4);
        at = at.substr(0, in_pos);
        // Keep the file name, not the temporary folder it was compiled in.
        size_t slash = b.location.rfind('/');
        if (slash != std::string::npos) b.location = b.location.substr(slash + 1);
      }
      b.where = at;
    } else if (detail.rfind("by thread", 0) == 0 && b.thread.empty()) {
      b.thread = detail;
    } else if (b.address.empty() && (detail.rfind("Address", 0) == 0 || detail.find("bytes after") != std::string::npos ||
                                     detail.find("bytes before") != std::string::npos)) {
      b.address = detail;
    }
  }
  // Fold repeats: same message, function and location.
  std::map<std::string, std::pair<size_t, int64_t>> seen;  // key -> (first block, count)
  std::vector<std::string> order;
  for (size_t i = 0; i < blocks.size(); ++i) {
    std::string key = blocks[i].message + "|" + blocks[i].where + "|" + blocks[i].location;
    auto it = seen.find(key);
    if (it == seen.end()) {
      seen.emplace(key, std::make_pair(i, int64_t{1}));
      order.push_back(key);
    } else {
      ++it->second.second;
    }
  }
  const std::string rule = "sanitizer-" + std::string(tool);
  for (const auto& key : order) {
    const auto& [index, count] = seen[key];
    const Block& b = blocks[index];
    std::string message = b.message;
    if (!b.where.empty()) message += " in " + b.where;
    if (!b.thread.empty()) message += ", " + b.thread;
    if (!b.address.empty()) message += ": " + b.address;
    if (count > 1) message += " (" + std::to_string(count) + " reports)";
    report.findings.push_back(Finding{rule, "L2", "reject", message, b.location.empty() ? b.where : b.location});
  }
  if (!report.summary_seen) report.error_count = static_cast<int64_t>(blocks.size());
  return report;
}

}  // namespace kgb::profile
