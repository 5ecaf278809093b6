// Runs coroutines to completion on a private io_context, for tests.
#pragma once

#include <exception>
#include <optional>
#include <utility>
#include <vector>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

namespace kgb::test {

template <class T>
T run_one(boost::asio::io_context& io, boost::asio::awaitable<T> task) {
  std::optional<T> result;
  std::exception_ptr failure;
  boost::asio::co_spawn(io, std::move(task), [&](std::exception_ptr e, T value) {
    failure = e;
    if (!e) result.emplace(std::move(value));
  });
  io.restart();
  io.run();
  if (failure) std::rethrow_exception(failure);
  return std::move(*result);
}

template <class T>
std::vector<T> run_all(boost::asio::io_context& io, std::vector<boost::asio::awaitable<T>> tasks) {
  std::vector<std::optional<T>> results(tasks.size());
  std::exception_ptr failure;
  for (std::size_t i = 0; i < tasks.size(); ++i)
    boost::asio::co_spawn(io, std::move(tasks[i]), [&, i](std::exception_ptr e, T value) {
      if (e) failure = e;
      else results[i].emplace(std::move(value));
    });
  io.restart();
  io.run();
  if (failure) std::rethrow_exception(failure);
  std::vector<T> out;
  for (auto& r : results) out.push_back(std::move(*r));
  return out;
}

}  // namespace kgb::test
