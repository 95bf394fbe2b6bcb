#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace ordo::oracle {

inline unsigned default_thread_count() { return std::max(1u, std::thread::hardware_concurrency()); }

// Runs body(i) for i in [0, count) on up to `threads` threads (0 = all cores), handing out indices
// dynamically. Each index is independent; no result depends on which thread ran it.
template <class Body>
void parallel_for(std::int64_t count, Body&& body, unsigned threads = 0) {
  if (threads == 0) threads = default_thread_count();
  threads = static_cast<unsigned>(std::min<std::int64_t>(threads, count));
  if (threads <= 1) {
    for (std::int64_t i = 0; i < count; ++i) body(i);
    return;
  }
  std::atomic<std::int64_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto worker = [&] {
    try {
      for (std::int64_t i = next++; i < count; i = next++) body(i);
    } catch (...) {
      std::lock_guard<std::mutex> lock(failure_mutex);
      if (!failure) failure = std::current_exception();
      next = count;
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace ordo::oracle
