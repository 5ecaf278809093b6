#include "kgb/jobs/spool.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <tuple>

namespace kgb::jobs {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr std::string_view kJson = ".json";

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

// Names of regular *.json files in a folder; temporaries start with '.'.
std::vector<std::pair<std::string, int64_t>> json_files(const fs::path& dir) {
  std::vector<std::pair<std::string, int64_t>> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name.front() == '.' || !ends_with(name, kJson)) continue;
    struct stat st {};
    if (::stat(it->path().c_str(), &st) != 0) continue;  // gone meanwhile
    out.emplace_back(name.substr(0, name.size() - kJson.size()),
                     static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec);
  }
  return out;
}

std::optional<SpoolClaim> parse_claim(const fs::path& dir, const std::string& stem) {
  const auto at = stem.rfind('@');
  if (at == std::string::npos || at == 0 || at + 1 == stem.size()) return std::nullopt;
  return SpoolClaim{stem.substr(0, at), stem.substr(at + 1), dir / (stem + std::string(kJson))};
}

Status mkdir_private(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return make_error("spool.io", "cannot create " + dir.string() + ": " + ec.message());
  if (::chmod(dir.c_str(), 0700) != 0 && errno != EPERM)
    return make_error("spool.io", "cannot make " + dir.string() + " private: " + std::strerror(errno));
  return Ok{};
}

}  // namespace

std::optional<std::string> read_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

Status write_file_atomic(const fs::path& file, std::string_view text) {
  // Unique per process and call: several workers may answer at once.
  static std::atomic<uint64_t> counter{0};
  std::string name = ".";
  name += file.filename().string();
  for (const std::string& part : {std::to_string(::getpid()), std::to_string(counter++), std::string("tmp")}) {
    name += '.';
    name += part;
  }
  const fs::path tmp = file.parent_path() / name;
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return make_error("spool.io", "cannot write " + tmp.string() + ": " + std::strerror(errno));
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = std::strerror(errno);
      ::close(fd);
      ::unlink(tmp.c_str());
      return make_error("spool.io", "cannot write " + tmp.string() + ": " + why);
    }
    done += static_cast<size_t>(n);
  }
  // The rename must never expose a file whose data is not on disk yet.
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    ::unlink(tmp.c_str());
    return make_error("spool.io", "cannot flush " + tmp.string() + ": " + std::strerror(errno));
  }
  if (::rename(tmp.c_str(), file.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    return make_error("spool.io", "cannot rename " + tmp.string() + " to " + file.string() + ": " + why);
  }
  return Ok{};
}

Spool::Spool(fs::path root) : root_(std::move(root)) {}

std::string Spool::partition_folder(std::string_view partition) {
  return partition.empty() ? "_default" : sanitize_job_key(partition);
}

fs::path Spool::queue_dir(std::string_view partition) const { return root_ / "queue" / partition_folder(partition); }

Status Spool::create() const {
  for (const fs::path& dir : {root_, root_ / "queue", root_ / "claimed", root_ / "results", root_ / "logs"})
    if (auto s = mkdir_private(dir); !s) return s;
  return Ok{};
}

Status Spool::enqueue(const JobRequest& request) const {
  if (!valid_job_key(request.key)) return make_error("spool.key", "invalid job key '" + request.key + "'");
  if (auto s = mkdir_private(queue_dir(request.partition)); !s) return s;
  return write_file_atomic(queue_dir(request.partition) / (request.key + std::string(kJson)),
                           to_json(request).dump(-1, ' ', false, json::error_handler_t::replace));
}

bool Spool::withdraw(const std::string& key, std::string_view partition) const {
  // A rename, like a worker's claim: of the two, exactly one succeeds.
  const fs::path from = queue_dir(partition) / (key + std::string(kJson));
  const fs::path to = root_ / ("." + key + ".withdrawn");
  if (::rename(from.c_str(), to.c_str()) != 0) return false;
  ::unlink(to.c_str());
  return true;
}

Status Spool::requeue(const SpoolClaim& claim, const JobRequest& next_try) const {
  if (auto s = enqueue(next_try); !s) return s;
  ::unlink(claim.file.c_str());
  return Ok{};
}

Result<JobRequest> read_request(const fs::path& file) {
  auto text = read_file(file);
  if (!text) return make_error("spool.io", "cannot read " + file.string());
  auto j = json::parse(*text, nullptr, false);
  if (j.is_discarded()) return make_error("job.invalid", file.string() + " is not JSON");
  return request_from_json(j);
}

Result<JobRequest> Spool::read_claim(const SpoolClaim& claim) const { return read_request(claim.file); }

fs::path Spool::queued_file(std::string_view folder, std::string_view key) const {
  return root_ / "queue" / std::string(folder) / (std::string(key) + std::string(kJson));
}

SpoolSnapshot Spool::snapshot() const {
  SpoolSnapshot s;
  std::vector<std::tuple<int64_t, std::string, std::string>> queued;
  std::error_code ec;
  for (fs::directory_iterator it(root_ / "queue", ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_directory()) continue;
    const std::string part = it->path().filename().string();
    for (auto& [key, mtime] : json_files(it->path())) queued.emplace_back(mtime, part, key);
  }
  std::sort(queued.begin(), queued.end());
  for (auto& [mtime, part, key] : queued) s.queued.emplace_back(part, key);
  for (auto& [stem, mtime] : json_files(root_ / "claimed"))
    if (auto c = parse_claim(root_ / "claimed", stem)) s.claimed.push_back(std::move(*c));
  for (auto& [key, mtime] : json_files(root_ / "results")) s.results.push_back(key);
  return s;
}

void Spool::forget(const std::string& key) const {
  ::unlink((root_ / "results" / (key + std::string(kJson))).c_str());
  for (const auto& c : snapshot().claimed)
    if (c.key == key) ::unlink(c.file.c_str());
  std::error_code ec;
  for (fs::directory_iterator it(root_ / "queue", ec), end; !ec && it != end; it.increment(ec))
    ::unlink((it->path() / (key + std::string(kJson))).c_str());
}

void Spool::clear_requests() const {
  std::error_code ec;
  for (const char* dir : {"queue", "claimed", "results"}) fs::remove_all(root_ / dir, ec);
  for (fs::directory_iterator it(root_, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().filename().string().front() == '.') fs::remove(it->path(), ec);
}

std::optional<Result<JobReply>> Spool::read_reply(const std::string& key) const {
  auto text = read_file(root_ / "results" / (key + std::string(kJson)));
  if (!text) return std::nullopt;
  auto j = json::parse(*text, nullptr, false);
  if (j.is_discarded()) return Result<JobReply>(make_error("job.invalid", "the reply of " + key + " is not JSON"));
  return reply_from_json(j);
}

Status Spool::write_reply(const JobReply& reply) const {
  if (!valid_job_key(reply.key)) return make_error("spool.key", "invalid job key '" + reply.key + "'");
  return write_file_atomic(root_ / "results" / (reply.key + std::string(kJson)),
                           to_json(reply).dump(-1, ' ', false, json::error_handler_t::replace));
}

void Spool::append_ledger(std::string_view line) const {
  // One write per line with O_APPEND: lines of several workers do not interleave.
  const int fd = ::open(ledger_file().c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) return;
  std::string text(line);
  text += '\n';
  (void)!::write(fd, text.data(), text.size());
  ::close(fd);
}

bool Spool::stop_requested() const { return ::access((root_ / "stop").c_str(), F_OK) == 0; }

void Spool::request_stop() const { (void)write_file_atomic(root_ / "stop", "stop\n"); }

std::optional<Spool::Taken> Spool::claim_next(std::string_view partition, const std::string& job_id) const {
  auto files = json_files(queue_dir(partition));
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  for (const auto& [key, mtime] : files) {
    const fs::path from = queue_dir(partition) / (key + std::string(kJson));
    SpoolClaim claim{key, job_id, root_ / "claimed" / (key + "@" + job_id + std::string(kJson))};
    if (::rename(from.c_str(), claim.file.c_str()) != 0) continue;  // another worker was faster
    auto request = read_claim(claim);
    if (!request) {
      JobReply reply;
      reply.key = key;
      reply.error = "the job request could not be read: " + request.error().message;
      reply.job_id = job_id;
      (void)write_reply(reply);
      release(claim);
      continue;
    }
    return Taken{std::move(request.value()), std::move(claim)};
  }
  return std::nullopt;
}

void Spool::release(const SpoolClaim& claim) const { ::unlink(claim.file.c_str()); }

}  // namespace kgb::jobs
