#pragma once
// A first-in first-out queue on one vector: unlike std::deque (which
// allocates a 512-byte block and a map as soon as it is made) an empty Fifo
// owns no memory, and a steady push/pop cycle reuses the same buffer. Popped
// slots are reclaimed when they are at least half of the buffer.
#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

namespace stallscope {

template <class T>
class Fifo {
public:
    bool empty() const { return head_ == v_.size(); }
    size_t size() const { return v_.size() - head_; }
    T& front() { return v_[head_]; }
    const T& front() const { return v_[head_]; }
    T& back() { return v_.back(); }
    T& operator[](size_t i) { return v_[head_ + i]; }
    const T& operator[](size_t i) const { return v_[head_ + i]; }
    auto begin() { return v_.begin() + std::ptrdiff_t(head_); }
    auto end() { return v_.end(); }
    auto begin() const { return v_.begin() + std::ptrdiff_t(head_); }
    auto end() const { return v_.end(); }

    void push_back(T t) { v_.push_back(std::move(t)); }
    void pop_front() { drop_front(1); }
    void pop_back() {
        v_.pop_back();
        if (empty()) clear();
    }
    // Forgets the `n` oldest elements (at most size()).
    void drop_front(size_t n) {
        const size_t k = std::min(n, size());
        if constexpr (!std::is_trivially_destructible_v<T>)
            for (size_t i = head_; i < head_ + k; ++i) v_[i] = T();  // release what they own now
        head_ += k;
        if (head_ == v_.size()) {
            clear();
        } else if (head_ >= 16 && head_ * 2 >= v_.size()) {
            v_.erase(v_.begin(), v_.begin() + std::ptrdiff_t(head_));
            head_ = 0;
        }
    }
    // Keeps the buffer for reuse.
    void clear() {
        v_.clear();
        head_ = 0;
    }
    // Gives back the buffer beyond what is held (a connection that will get no more).
    void shrink() {
        v_.erase(v_.begin(), v_.begin() + std::ptrdiff_t(head_));
        head_ = 0;
        v_.shrink_to_fit();
    }

private:
    std::vector<T> v_;
    size_t head_ = 0;
};

} // namespace stallscope
