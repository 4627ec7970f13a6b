#pragma once
// A queue between threads that holds at most `cap` items: push waits while
// it is full, pop while it is empty. close() wakes everyone; pop then
// returns false once the queue is drained, push drops what it is given.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>

namespace stallscope {

template <class T> class BoundedQueue {
public:
    explicit BoundedQueue(size_t cap) : cap_(cap ? cap : 1) {}

    void push(T item) {
        std::unique_lock lock(mu_);
        wait(lock, not_full_, full_wait_ns_, [&] { return closed_ || items_.size() < cap_; });
        if (closed_) return;
        items_.push_back(std::move(item));
        not_empty_.notify_one();
    }
    // Without waiting: false when full (or closed), and `item` is left as it was.
    bool try_push(T& item) {
        std::lock_guard lock(mu_);
        if (closed_ || items_.size() >= cap_) return false;
        items_.push_back(std::move(item));
        not_empty_.notify_one();
        return true;
    }
    // Without waiting: false when empty.
    bool try_pop(T& out) {
        std::lock_guard lock(mu_);
        if (items_.empty()) return false;
        out = std::move(items_.front());
        items_.pop_front();
        not_full_.notify_one();
        return true;
    }
    bool pop(T& out) {
        std::unique_lock lock(mu_);
        wait(lock, not_empty_, empty_wait_ns_, [&] { return closed_ || !items_.empty(); });
        if (items_.empty()) return false;
        out = std::move(items_.front());
        items_.pop_front();
        not_full_.notify_one();
        return true;
    }
    void close() {
        std::lock_guard lock(mu_);
        closed_ = true;
        not_full_.notify_all();
        not_empty_.notify_all();
    }

    // How long push waited for room and pop for an item, in all (the thread
    // statistics: which stage the others wait for).
    uint64_t full_wait_ns() {
        std::lock_guard lock(mu_);
        return full_wait_ns_;
    }
    uint64_t empty_wait_ns() {
        std::lock_guard lock(mu_);
        return empty_wait_ns_;
    }

private:
    template <class Ready>
    void wait(std::unique_lock<std::mutex>& lock, std::condition_variable& cv, uint64_t& waited, Ready ready) {
        if (ready()) return;  // the usual case: no clock read
        const auto t0 = std::chrono::steady_clock::now();
        cv.wait(lock, ready);
        waited += uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
    }

    std::mutex mu_;
    std::condition_variable not_full_, not_empty_;
    std::deque<T> items_;
    size_t cap_;
    bool closed_ = false;
    uint64_t full_wait_ns_ = 0, empty_wait_ns_ = 0;
};

} // namespace stallscope
