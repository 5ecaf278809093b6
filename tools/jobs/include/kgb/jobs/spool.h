// The spool: a folder on a filesystem shared by the machine that asks for
// evaluations (the driver) and the nodes that run them (workers). Every state
// change is one rename, so a file is always in exactly one place and a killed
// process leaves nothing half-written:
//
//   queue/<partition>/<key>.json   a request waiting for a worker of that partition
//   claimed/<key>@<job>.json        taken by the worker of scheduler job <job> (rename
//                                   from queue/: exactly one worker wins)
//   results/<key>.json             the reply (written to a temporary name, then renamed);
//                                   the worker drops its claim after writing it
//   ledger                         one line per evaluation started and ended, appended
//   logs/                          the workers' output, one file per job
//   stop                           present: workers exit instead of waiting for work
//
// A key therefore moves queue -> claimed -> results; listing the folders in
// that order sees every key at least once. The spool holds the run's secret
// input seed inside requests: folders are created private (0700).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kgb/jobs/job.h"
#include "kgb/result.h"

namespace kgb::jobs {

struct SpoolClaim {
  std::string key;
  std::string job_id;            // the scheduler job holding it
  std::filesystem::path file;
};

// What the folders hold at one moment (listed queue, then claimed, then results).
struct SpoolSnapshot {
  std::vector<std::pair<std::string, std::string>> queued;  // (partition folder, key), oldest first
  std::vector<SpoolClaim> claimed;
  std::vector<std::string> results;                         // keys
};

class Spool {
 public:
  explicit Spool(std::filesystem::path root);

  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path logs_dir() const { return root_ / "logs"; }
  std::filesystem::path ledger_file() const { return root_ / "ledger"; }

  // Creates the folders (private); fails when the root cannot be written.
  Status create() const;

  // The folder name of a partition ("" is the scheduler's default partition).
  static std::string partition_folder(std::string_view partition);
  std::filesystem::path queued_file(std::string_view folder, std::string_view key) const;

  // Driver side.
  Status enqueue(const JobRequest& request) const;
  // Takes a queued request back; false when a worker has already claimed it.
  bool withdraw(const std::string& key, std::string_view partition) const;
  // Puts a claimed request back in the queue (the next try), then drops the claim.
  Status requeue(const SpoolClaim& claim, const JobRequest& next_try) const;
  Result<JobRequest> read_claim(const SpoolClaim& claim) const;
  SpoolSnapshot snapshot() const;
  // Removes every file of a key (queue, claims, result).
  void forget(const std::string& key) const;
  // Removes requests and replies (they hold the secret seed); keeps the ledger and logs.
  void clear_requests() const;

  // Both sides.
  std::optional<Result<JobReply>> read_reply(const std::string& key) const;  // nullopt: none yet
  Status write_reply(const JobReply& reply) const;
  void append_ledger(std::string_view line) const;
  bool stop_requested() const;
  void request_stop() const;

  // Worker side: takes the oldest request of the partition.
  struct Taken {
    JobRequest request;
    SpoolClaim claim;
  };
  // nullopt: nothing queued. A request file that cannot be read becomes a
  // reply that says so (the driver gets an answer, not a silent hang).
  std::optional<Taken> claim_next(std::string_view partition, const std::string& job_id) const;
  void release(const SpoolClaim& claim) const;

 private:
  std::filesystem::path queue_dir(std::string_view partition) const;
  std::filesystem::path root_;
};

// A request file (queued or claimed).
Result<JobRequest> read_request(const std::filesystem::path& file);
// Reads a whole file; nullopt when it cannot be opened.
std::optional<std::string> read_file(const std::filesystem::path& file);
// Writes `text` to a temporary name beside `file`, flushes and renames it over `file`.
Status write_file_atomic(const std::filesystem::path& file, std::string_view text);

}  // namespace kgb::jobs
