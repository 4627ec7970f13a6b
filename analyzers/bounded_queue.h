#pragma once
// A queue between threads that holds at most `cap` items: push waits while
// it is full, pop while it is empty. close() wakes everyone; pop then
// returns false once the queue is drained, push drops what it is given.
#include <condition_variable>
#include <deque>
#include <mutex>

namespace stallscope {

template <class T> class BoundedQueue {
public:
    explicit BoundedQueue(size_t cap) : cap_(cap ? cap : 1) {}

    void push(T item) {
        std::unique_lock lock(mu_);
        not_full_.wait(lock, [&] { return closed_ || items_.size() < cap_; });
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
        not_empty_.wait(lock, [&] { return closed_ || !items_.empty(); });
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

private:
    std::mutex mu_;
    std::condition_variable not_full_, not_empty_;
    std::deque<T> items_;
    size_t cap_;
    bool closed_ = false;
};

} // namespace stallscope
