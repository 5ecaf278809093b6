// aten/resolve_conj pilots the conj and neg flags of kgb_tensor together
// with alias-or-copy: the conj bit must be materialised with every other
// flag (ATen's copy_ resolves both), and a tensor without it must come back
// as self's view. The bundled CPU solution passes; a kernel that ignores the
// neg bit and one that copies where ATen aliases fail on exactly those cases.
#include "v2_candidate_support.h"

using namespace kgb_v2_test;

TEST_CASE("aten/resolve_conj: the bundled CPU solution passes every case") {
  const kgb::Verdict v = evaluate("aten/resolve_conj", solution("aten/resolve_conj", "cpu.cpp"));
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::Passed);
  CHECK(failed_cases(v).empty());
}

TEST_CASE("aten/resolve_conj: ignoring a neg bit set with the conj bit gives wrong values on those cases only") {
  const kgb::Verdict v = evaluate("aten/resolve_conj", candidate("aten_resolve_conj", "ignores_neg_bit.cpp"));
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::WrongResult);
  CHECK(failed_statuses(v) == std::set<std::string>{"mismatch"});
  CHECK(failed_cases(v) == std::set<std::string>{"conj_and_neg", "conj_transposed_padded"});
}

TEST_CASE("aten/resolve_conj: materialising a tensor without the conj bit is a view mismatch") {
  const kgb::Verdict v = evaluate("aten/resolve_conj", candidate("aten_resolve_conj", "copies_without_conj_bit.cpp"));
  INFO(explain(v));
  CHECK(v.outcome == kgb::Outcome::WrongResult);
  CHECK(failed_statuses(v) == std::set<std::string>{"view.mismatch"});
  CHECK(failed_cases(v) == std::set<std::string>{"no_flag_aliases", "neg_only_aliases", "real_transposed_aliases"});
}
