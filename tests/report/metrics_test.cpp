// The metric functions against values computed by hand.
#include <doctest/doctest.h>

#include <cmath>

#include "kgb/report/metrics.h"

using namespace kgb::report;

namespace {

// C(a, b) / C(n, k) the slow way, for comparison on small numbers.
double binomial(int n, int k) {
  if (k < 0 || k > n) return 0;
  double r = 1;
  for (int i = 1; i <= k; ++i) r = r * (n - k + i) / i;
  return r;
}

}  // namespace

TEST_CASE("pass@k: hand-computed values") {
  // n = 5, c = 2: 1 - C(3,k)/C(5,k).
  CHECK(*pass_at_k(5, 2, 1) == doctest::Approx(0.4));        // 1 - 3/5
  CHECK(*pass_at_k(5, 2, 2) == doctest::Approx(0.7));        // 1 - 3/10
  CHECK(*pass_at_k(5, 2, 3) == doctest::Approx(0.9));        // 1 - 1/10
  CHECK(*pass_at_k(10, 3, 5) == doctest::Approx(1.0 - 21.0 / 252.0));
  // pass@1 is the share of correct samples.
  CHECK(*pass_at_k(7, 3, 1) == doctest::Approx(3.0 / 7.0));
}

TEST_CASE("pass@k: edge cases") {
  SUBCASE("c = 0 gives 0") {
    CHECK(*pass_at_k(5, 0, 1) == 0.0);
    CHECK(*pass_at_k(5, 0, 5) == 0.0);
  }
  SUBCASE("c = n gives 1") {
    CHECK(*pass_at_k(5, 5, 1) == 1.0);
    CHECK(*pass_at_k(1, 1, 1) == 1.0);
  }
  SUBCASE("k > n - c gives 1: every k-subset holds a correct sample") {
    CHECK(*pass_at_k(5, 2, 4) == 1.0);
    CHECK(*pass_at_k(5, 2, 5) == 1.0);
    CHECK(*pass_at_k(10, 1, 10) == 1.0);
  }
  SUBCASE("undefined arguments") {
    CHECK_FALSE(pass_at_k(5, 2, 6).has_value());   // k > n
    CHECK_FALSE(pass_at_k(0, 0, 1).has_value());   // no samples
    CHECK_FALSE(pass_at_k(5, 2, 0).has_value());   // k < 1
    CHECK_FALSE(pass_at_k(5, 6, 1).has_value());   // c > n
    CHECK_FALSE(pass_at_k(5, -1, 1).has_value());
  }
}

TEST_CASE("pass@k: the product form equals the binomial form, and stays finite for large n") {
  for (int n = 1; n <= 30; ++n)
    for (int c = 0; c <= n; ++c)
      for (int k = 1; k <= n; ++k) {
        const double exact = 1.0 - binomial(n - c, k) / binomial(n, k);
        CHECK(*pass_at_k(n, c, k) == doctest::Approx(exact).epsilon(1e-9));
      }
  // C(2000, 1000) overflows a double; the product form does not.
  const auto big = pass_at_k(2000, 3, 1000);
  REQUIRE(big.has_value());
  CHECK(std::isfinite(*big));
  // 1 - (1000*999*998)/(2000*1999*1998) by hand.
  CHECK(*big == doctest::Approx(1.0 - (1000.0 * 999.0 * 998.0) / (2000.0 * 1999.0 * 1998.0)));
  const auto lg = pass_at_k(200, 13, 100);
  const double via_lgamma =
      1.0 - std::exp(std::lgamma(188.0) - std::lgamma(88.0) - std::lgamma(101.0) - (std::lgamma(201.0) - std::lgamma(101.0) - std::lgamma(101.0)));
  CHECK(*lg == doctest::Approx(via_lgamma).epsilon(1e-9));
}

TEST_CASE("mean pass@k leaves out tasks with fewer than k samples") {
  const std::vector<TaskSamples> tasks = {{5, 2}, {1, 1}, {5, 0}};
  CHECK(*mean_pass_at_k(tasks, 1) == doctest::Approx((0.4 + 1.0 + 0.0) / 3));
  CHECK(*mean_pass_at_k(tasks, 2) == doctest::Approx((0.7 + 0.0) / 2));
  CHECK_FALSE(mean_pass_at_k(tasks, 6).has_value());
  CHECK_FALSE(mean_pass_at_k({}, 1).has_value());
}

TEST_CASE("any of K rounds counts first successes within the first K iterations") {
  const std::vector<std::optional<int>> firsts = {1, 3, std::nullopt, 2};
  CHECK(any_of_k_rounds(firsts, 1) == doctest::Approx(0.25));
  CHECK(any_of_k_rounds(firsts, 2) == doctest::Approx(0.5));
  CHECK(any_of_k_rounds(firsts, 3) == doctest::Approx(0.75));
  CHECK(any_of_k_rounds(firsts, 100) == doctest::Approx(0.75));  // the failure never counts
  CHECK(any_of_k_rounds({}, 3) == 0.0);
}

TEST_CASE("speedup per case and geometric means") {
  CHECK(*case_speedup(10, 5) == doctest::Approx(2.0));
  CHECK(*case_speedup(3, 12) == doctest::Approx(0.25));
  CHECK_FALSE(case_speedup(0, 5).has_value());
  CHECK_FALSE(case_speedup(10, 0).has_value());
  CHECK(*geometric_mean({2, 8}) == doctest::Approx(4.0));
  CHECK(*geometric_mean({1, 0, -3, 4}) == doctest::Approx(2.0));  // non-positive values are not speedups
  CHECK(*geometric_mean({0.5, 2, 1}) == doctest::Approx(1.0));
  CHECK_FALSE(geometric_mean({}).has_value());
  CHECK_FALSE(geometric_mean({0, -1}).has_value());
}

TEST_CASE("accuracy, geomean with failures, fast_p denominators") {
  // A fast, B slow, C failed (its 10x does not count), D solved but not timed.
  const std::vector<TaskOutcome> tasks = {
      {"A", true, 2.0}, {"B", true, 0.5}, {"C", false, 10.0}, {"D", true, std::nullopt}};
  CHECK(accuracy(tasks) == doctest::Approx(0.75));
  CHECK(*geomean_speedup_solved(tasks) == doctest::Approx(1.0));  // sqrt(2 * 0.5); C and D take no part
  // Every fast_p divides by all four tasks.
  CHECK(fast_p(tasks, 0.0) == doctest::Approx(0.75));  // every solved task, D included
  CHECK(fast_p(tasks, 0.8) == doctest::Approx(0.25));  // A only
  CHECK(fast_p(tasks, 1.0) == doctest::Approx(0.25));
  CHECK(fast_p(tasks, 1.5) == doctest::Approx(0.25));
  CHECK(fast_p(tasks, 2.0) == doctest::Approx(0.0));   // strictly above p
  CHECK(fast_p({}, 1.0) == 0.0);
  CHECK(accuracy({}) == 0.0);
  CHECK(fast_p_thresholds() == std::vector<double>{0.0, 0.8, 1.0, 1.5, 2.0});
  // Nothing solved and timed: no geomean.
  CHECK_FALSE(geomean_speedup_solved({{"C", false, 3.0}, {"D", true, std::nullopt}}).has_value());
}

TEST_CASE("matched subset: the tasks every run solved") {
  const std::vector<TaskOutcome> one = {{"A", true, 2.0}, {"B", true, 0.5}, {"C", false, std::nullopt}};
  const std::vector<TaskOutcome> two = {{"A", true, 1.0}, {"B", false, std::nullopt}, {"C", true, 4.0}};
  const auto matched = matched_tasks({one, two});
  CHECK(matched == std::set<std::string>{"A"});
  CHECK(*geomean_speedup_over(one, matched) == doctest::Approx(2.0));
  CHECK(*geomean_speedup_over(two, matched) == doctest::Approx(1.0));
  CHECK(matched_tasks({one}) == std::set<std::string>{"A", "B"});
  CHECK(matched_tasks({}).empty());
  CHECK_FALSE(geomean_speedup_over(one, {}).has_value());
}

TEST_CASE("budget curves on a synthetic trajectory") {
  // T1: fails (100 tokens, $0.01), then succeeds (200 tokens, $0.02): 300 tokens, $0.03, 2 iterations.
  // T2: attempt a never succeeds; attempt b succeeds at once with 400 tokens, $0.04: 400 tokens, 1 iteration.
  // T3: never. T4: one iteration, 1000 tokens, $0.10.
  const std::vector<TaskTrajectories> tasks = {
      {"T1", {{{100, 0.01, false}, {200, 0.02, true}, {50, 0.005, true}}}},
      {"T2", {{{50, 0.005, false}, {50, 0.005, false}, {50, 0.005, false}}, {{400, 0.04, true}}}},
      {"T3", {{{700, 0.07, false}}}},
      {"T4", {{{1000, 0.10, true}}}},
  };
  CHECK(*spend_to_first_success(tasks[0].attempts[0], BudgetKind::Tokens) == doctest::Approx(300));
  CHECK(*spend_to_first_success(tasks[0].attempts[0], BudgetKind::Dollars) == doctest::Approx(0.03));
  CHECK(*spend_to_first_success(tasks[0].attempts[0], BudgetKind::Iterations) == doctest::Approx(2));
  CHECK_FALSE(spend_to_first_success(tasks[1].attempts[0], BudgetKind::Tokens).has_value());
  CHECK_FALSE(spend_to_first_success({}, BudgetKind::Tokens).has_value());

  const auto tokens = budget_curve(tasks, BudgetKind::Tokens);
  REQUIRE(tokens.size() == 3);
  CHECK(tokens[0].budget == doctest::Approx(300));
  CHECK(tokens[0].accuracy == doctest::Approx(0.25));
  CHECK(tokens[1].budget == doctest::Approx(400));
  CHECK(tokens[1].accuracy == doctest::Approx(0.5));
  CHECK(tokens[2].budget == doctest::Approx(1000));
  CHECK(tokens[2].accuracy == doctest::Approx(0.75));  // T3 keeps the denominator at 4

  CHECK(accuracy_at_budget(tasks, BudgetKind::Tokens, 299) == 0.0);
  CHECK(accuracy_at_budget(tasks, BudgetKind::Tokens, 300) == doctest::Approx(0.25));
  CHECK(accuracy_at_budget(tasks, BudgetKind::Tokens, 999) == doctest::Approx(0.5));
  CHECK(accuracy_at_budget(tasks, BudgetKind::Tokens, 1e12) == doctest::Approx(0.75));
  CHECK(accuracy_on_curve(tokens, 299) == 0.0);
  CHECK(accuracy_on_curve(tokens, 450) == doctest::Approx(0.5));
  CHECK(accuracy_on_curve(tokens, 1e12) == doctest::Approx(0.75));

  const auto iterations = budget_curve(tasks, BudgetKind::Iterations);
  REQUIRE(iterations.size() == 2);
  CHECK(iterations[0].budget == 1);
  CHECK(iterations[0].accuracy == doctest::Approx(0.5));  // T2 (attempt b) and T4
  CHECK(iterations[1].budget == 2);
  CHECK(iterations[1].accuracy == doctest::Approx(0.75));

  const auto dollars = budget_curve(tasks, BudgetKind::Dollars);
  REQUIRE(dollars.size() == 3);
  CHECK(dollars[0].budget == doctest::Approx(0.03));
  CHECK(dollars[2].budget == doctest::Approx(0.10));
  CHECK(budget_curve({}, BudgetKind::Tokens).empty());
}

TEST_CASE("cost per task and per success") {
  const auto u = per_unit(1200, 4, 3);
  CHECK(u.total == 1200);
  CHECK(*u.per_task == doctest::Approx(300));
  CHECK(*u.per_success == doctest::Approx(400));
  const auto none = per_unit(1200, 4, 0);
  CHECK(*none.per_task == doctest::Approx(300));
  CHECK_FALSE(none.per_success.has_value());
  CHECK_FALSE(per_unit(0, 0, 0).per_task.has_value());
}

TEST_CASE("portability metrics") {
  CHECK(accuracy_gap_points(0.5, 0.75) == doctest::Approx(-25.0));
  CHECK(accuracy_gap_points(0.75, 0.75) == doctest::Approx(0.0));

  const auto all = solved_on_all({{"A", "B"}, {"A", "C"}}, {{"A", "B", "C"}, {"A", "B", "C", "D"}});
  CHECK(all.common == 3);  // D was not run everywhere
  CHECK(all.solved == 1);  // A
  CHECK(all.rate == doctest::Approx(1.0 / 3));
  CHECK(solved_on_all({}, {}).common == 0);

  // Harmonic mean of 2 and 0.5: 2 / (1/2 + 2) = 0.8.
  CHECK(*performance_portability({{true, 2.0}, {true, 0.5}}) == doctest::Approx(0.8));
  CHECK(*performance_portability({{true, 2.0}, {false, std::nullopt}}) == 0.0);  // fails somewhere
  CHECK(*performance_portability({{true, std::nullopt}, {true, 2.0}}) == doctest::Approx(2.0));  // untimed: no term
  CHECK_FALSE(performance_portability({{true, std::nullopt}}).has_value());
  CHECK_FALSE(performance_portability({}).has_value());
}
