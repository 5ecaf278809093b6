// Evaluation jobs as files: requests and replies as JSON, the spool's moves
// (queue -> claimed -> results), and what a damaged or foreign file does.
#include <doctest/doctest.h>

#include <stdlib.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>

#include "kgb/jobs/job.h"
#include "kgb/jobs/spool.h"
#include "temp_dir.h"

using namespace kgb;
using namespace kgb::jobs;
namespace fs = std::filesystem;
using kgb::test::temp_dir;

namespace {

JobRequest request(const std::string& key, const std::string& partition = "cpu") {
  JobRequest r;
  r.key = key;
  r.kind = JobKind::Evaluate;
  r.task = "blas/saxpy";
  r.platform = "cpu-x86_64";
  r.source = "extern \"C\" int kgb_blas_saxpy() { return 0; }\n";
  r.options.time = false;
  r.options.seed = 0xFFFFFFFFFFFFFFF1ull;  // above 2^63: must survive the trip as text
  r.options.case_filter = "small*";
  r.partition = partition;
  return r;
}

void write(const fs::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary);
  out << text;
}

}  // namespace

TEST_CASE("a request survives JSON with its seed, options and digest") {
  const JobRequest r = request("a1-i0-s1");
  auto back = request_from_json(to_json(r));
  REQUIRE(back.ok());
  CHECK(back->key == r.key);
  CHECK(back->task == r.task);
  CHECK(back->source == r.source);
  REQUIRE(back->options.seed.has_value());
  CHECK(*back->options.seed == 0xFFFFFFFFFFFFFFF1ull);
  CHECK(back->options.time == false);
  CHECK(back->options.case_filter == "small*");
  CHECK(back->digest() == r.digest());
  CHECK(to_json(r)["options"]["seed"].is_string());
}

TEST_CASE("the digest changes with what is evaluated, not with the try") {
  JobRequest a = request("k");
  JobRequest b = a;
  b.attempt = 3;
  b.failures = {"try 1: CANCELLED"};
  b.partition = "other";
  CHECK(a.digest() == b.digest());
  b.source += " ";
  CHECK(a.digest() != b.digest());
  JobRequest c = a;
  c.options.seeds_per_case = 5;
  CHECK(a.digest() != c.digest());
  JobRequest d = a;
  d.kind = JobKind::Compile;
  CHECK(a.digest() != d.digest());
}

TEST_CASE("damaged or hostile requests are refused with a reason") {
  auto j = to_json(request("k1"));
  SUBCASE("the source was changed after the digest") {
    j["source"] = "int main() {}";
    auto r = request_from_json(j);
    REQUIRE(!r.ok());
    CHECK(r.error().message.find("digest") != std::string::npos);
  }
  SUBCASE("a key that would leave the spool folder") {
    j["key"] = "../../etc/passwd";
    j.erase("digest");
    CHECK(!request_from_json(j).ok());
  }
  SUBCASE("an unknown kind") {
    j["kind"] = "format-disk";
    CHECK(!request_from_json(j).ok());
  }
  SUBCASE("not an object") { CHECK(!request_from_json(nlohmann::json::array()).ok()); }
  SUBCASE("a missing field") {
    j.erase("task");
    CHECK(!request_from_json(j).ok());
  }
}

TEST_CASE("job keys are file names and nothing else") {
  CHECK(valid_job_key("a12-i0-s3"));
  CHECK(valid_job_key("validate-aten_softmax"));
  CHECK_FALSE(valid_job_key(""));
  CHECK_FALSE(valid_job_key(".hidden"));
  CHECK_FALSE(valid_job_key("a/b"));
  CHECK_FALSE(valid_job_key("a b"));
  CHECK_FALSE(valid_job_key(std::string(201, 'a')));
  CHECK(sanitize_job_key("validate-aten/softmax") == "validate-aten_softmax");
  CHECK(valid_job_key(sanitize_job_key("../x y")));
  CHECK(valid_job_key(sanitize_job_key("")));
}

TEST_CASE("payloads of lint, compile and validation jobs round-trip") {
  LintOutcome lint;
  lint.parse_ok = false;
  lint.diagnostics.push_back({"candidate.cpp", 3, 7, "error", "expected ';'", "int x"});
  lint.findings.push_back({"banned-call", "L1", "reject", "system() is not allowed", "candidate.cpp:9:3"});
  const auto lj = lint_json(lint, true);
  CHECK(lj["available"] == true);
  const LintOutcome lb = lint_from_json(lj);
  CHECK(!lb.parse_ok);
  REQUIRE(lb.diagnostics.size() == 1);
  CHECK(lb.diagnostics[0].line == 3);
  REQUIRE(lb.findings.size() == 1);
  CHECK(lb.findings[0].rule == "banned-call");

  CompileOutput c;
  c.ok = false;
  c.log = "candidate.cpp:1: error: x";
  c.infra_error = "g++ not found";
  c.seconds = 1.5;
  c.diagnostics.push_back({"candidate.cpp", 1, 1, "error", "x", ""});
  const CompileOutput cb = compile_from_json(compile_json(c));
  CHECK(!cb.ok);
  CHECK(cb.log == c.log);
  CHECK(cb.infra_error == c.infra_error);
  CHECK(cb.seconds == doctest::Approx(1.5));
  CHECK(cb.diagnostics.size() == 1);

  TaskValidation v;
  v.task = "blas/saxpy";
  v.passed = false;
  v.problems = {"reference output is all zeros"};
  Verdict verdict;
  verdict.task = "blas/saxpy";
  verdict.outcome = Outcome::WrongResult;
  verdict.summary = "2 of 8 cases wrong";
  v.solution = verdict;
  const TaskValidation vb = validation_from_json(validation_json(v));
  CHECK(vb.task == v.task);
  CHECK(vb.problems == v.problems);
  REQUIRE(vb.solution.has_value());
  CHECK(vb.solution->outcome == Outcome::WrongResult);
  CHECK(vb.solution->summary == verdict.summary);
}

TEST_CASE("a request moves queue -> claimed -> results, one rename at a time") {
  Spool spool(temp_dir("spool-moves"));
  REQUIRE(spool.create().ok());
  CHECK((fs::status(spool.root()).permissions() & fs::perms::others_all) == fs::perms::none);
  REQUIRE(spool.enqueue(request("k1")).ok());
  REQUIRE(spool.enqueue(request("k2", "")).ok());
  auto snap = spool.snapshot();
  REQUIRE(snap.queued.size() == 2);
  CHECK(snap.claimed.empty());

  // A worker of partition cpu sees only its queue.
  auto taken = spool.claim_next("cpu", "77");
  REQUIRE(taken.has_value());
  CHECK(taken->request.key == "k1");
  CHECK(taken->claim.job_id == "77");
  CHECK(!spool.claim_next("cpu", "78").has_value());
  snap = spool.snapshot();
  REQUIRE(snap.claimed.size() == 1);
  CHECK(snap.claimed[0].key == "k1");
  CHECK(snap.claimed[0].job_id == "77");
  REQUIRE(snap.queued.size() == 1);
  CHECK(snap.queued[0].first == "_default");

  JobReply reply;
  reply.key = "k1";
  reply.digest = taken->request.digest();
  reply.completed = true;
  reply.payload = {{"outcome", "passed"}};
  reply.job_id = "77";
  REQUIRE(spool.write_reply(reply).ok());
  spool.release(taken->claim);
  snap = spool.snapshot();
  CHECK(snap.claimed.empty());
  REQUIRE(snap.results.size() == 1);
  auto back = spool.read_reply("k1");
  REQUIRE(back.has_value());
  REQUIRE(back->ok());
  CHECK((*back)->payload["outcome"] == "passed");
  CHECK(!spool.read_reply("k2").has_value());

  // No temporary file is left behind by the atomic writes.
  for (const auto& e : fs::recursive_directory_iterator(spool.root()))
    CHECK(e.path().filename().string().find(".tmp") == std::string::npos);

  spool.forget("k1");
  CHECK(spool.snapshot().results.empty());
}

TEST_CASE("withdraw and claim race for a queued request: exactly one wins") {
  Spool spool(temp_dir("spool-withdraw"));
  REQUIRE(spool.create().ok());
  REQUIRE(spool.enqueue(request("k1")).ok());
  REQUIRE(spool.claim_next("cpu", "5").has_value());
  CHECK_FALSE(spool.withdraw("k1", "cpu"));  // the worker has it
  REQUIRE(spool.enqueue(request("k2")).ok());
  CHECK(spool.withdraw("k2", "cpu"));
  CHECK(!spool.claim_next("cpu", "6").has_value());
}

TEST_CASE("many workers claiming at once take every request exactly once") {
  Spool spool(temp_dir("spool-race"));
  REQUIRE(spool.create().ok());
  constexpr int kRequests = 300;
  for (int i = 0; i < kRequests; ++i) REQUIRE(spool.enqueue(request("k" + std::to_string(i))).ok());
  std::mutex m;
  std::multiset<std::string> taken;
  std::vector<std::thread> workers;
  for (int w = 0; w < 8; ++w)
    workers.emplace_back([&, w] {
      while (auto t = spool.claim_next("cpu", std::to_string(100 + w))) {
        std::lock_guard lock(m);
        taken.insert(t->request.key);
      }
    });
  for (auto& t : workers) t.join();
  CHECK(taken.size() == static_cast<size_t>(kRequests));
  CHECK(std::set<std::string>(taken.begin(), taken.end()).size() == static_cast<size_t>(kRequests));
  CHECK(spool.snapshot().claimed.size() == static_cast<size_t>(kRequests));
}

TEST_CASE("a claim whose job died goes back to the queue as the next try") {
  Spool spool(temp_dir("spool-requeue"));
  REQUIRE(spool.create().ok());
  REQUIRE(spool.enqueue(request("k1")).ok());
  auto t = spool.claim_next("cpu", "9");
  REQUIRE(t.has_value());
  JobRequest next = t->request;
  next.attempt = 2;
  next.failures.push_back("try 1 (job 9): CANCELLED");
  REQUIRE(spool.requeue(t->claim, next).ok());
  auto snap = spool.snapshot();
  CHECK(snap.claimed.empty());
  REQUIRE(snap.queued.size() == 1);
  auto again = spool.claim_next("cpu", "10");
  REQUIRE(again.has_value());
  CHECK(again->request.attempt == 2);
  CHECK(again->request.failures.size() == 1);
  CHECK(again->request.digest() == request("k1").digest());
}

TEST_CASE("an unreadable request gets a reply that says so instead of a silent loss") {
  Spool spool(temp_dir("spool-damaged"));
  REQUIRE(spool.create().ok());
  fs::create_directories(spool.root() / "queue" / "cpu");
  write(spool.root() / "queue" / "cpu" / "bad.json", "{ this is not json");
  REQUIRE(spool.enqueue(request("good")).ok());
  std::set<std::string> taken;
  while (auto t = spool.claim_next("cpu", "3")) taken.insert(t->request.key);
  CHECK(taken == std::set<std::string>{"good"});
  auto reply = spool.read_reply("bad");
  REQUIRE(reply.has_value());
  REQUIRE(reply->ok());
  CHECK(!(*reply)->completed);
  CHECK((*reply)->error.find("could not be read") != std::string::npos);
  // A damaged reply is an error value, not an exception.
  write(spool.root() / "results" / "worse.json", "[1,2");
  auto worse = spool.read_reply("worse");
  REQUIRE(worse.has_value());
  CHECK(!worse->ok());
}

TEST_CASE("the stop file, the ledger and clearing the requests") {
  Spool spool(temp_dir("spool-stop"));
  REQUIRE(spool.create().ok());
  CHECK(!spool.stop_requested());
  spool.request_stop();
  CHECK(spool.stop_requested());
  spool.append_ledger("start k1 job=1");
  spool.append_ledger("end k1 job=1 completed");
  auto text = read_file(spool.ledger_file());
  REQUIRE(text.has_value());
  CHECK(*text == "start k1 job=1\nend k1 job=1 completed\n");
  REQUIRE(spool.enqueue(request("k1")).ok());
  spool.clear_requests();
  CHECK(!fs::exists(spool.root() / "queue"));
  CHECK(fs::exists(spool.ledger_file()));
  CHECK(fs::exists(spool.logs_dir()));
}

TEST_CASE("a spool under a folder that cannot be written is an error") {
  Spool spool("/proc/kgb-spool-cannot-exist");
  CHECK(!spool.create().ok());
  CHECK(!spool.enqueue(request("k")).ok());
}
