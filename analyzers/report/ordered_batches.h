#pragma once
// Elements of one open JSON array made by worker threads, a batch at a time,
// and written by the array's own stream in the order the batches were handed
// over: the same bytes as one thread writing them all (issue 26). The thread
// that fills the batches decides what has to be decided in order; the
// workers only write. At most 2 batches per worker are in flight, so memory
// stays bounded. Batch: any type with clear() (called once its text is
// written; it may keep its memory for the next use).
#include "analyzers/report/append_buf.h"
#include "analyzers/report/json_stream.h"

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <ostream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace stallscope {

template <class Batch>
class OrderedBatches {
public:
    // Writes a batch's elements into `js`, a stream resumed inside the array
    // (on a worker; what it reads of the caller's must not change meanwhile).
    using Encode = std::function<void(Batch&, JsonStream& js)>;

    OrderedBatches(JsonStream& w, unsigned workers, Encode encode)
        : w_(w), depth_(w.depth()), encode_(std::move(encode)), max_in_flight_(2 * size_t(workers)) {
        for (unsigned i = 0; i < workers; ++i) threads_.emplace_back([this] { work(); });
    }
    ~OrderedBatches() {
        {
            std::lock_guard<std::mutex> lock(m_);
            stop_ = true;
        }
        work_cv_.notify_all();
        for (auto& t : threads_) t.join();
    }
    OrderedBatches(const OrderedBatches&) = delete;
    OrderedBatches& operator=(const OrderedBatches&) = delete;

    // The batch being filled.
    Batch& filling() {
        if (!cur_) cur_ = take_free();
        return cur_->batch;
    }
    // Hands the batch being filled, of `elements` elements, to the workers,
    // and writes the batches done by then (waiting when too many are in flight).
    void submit(uint32_t elements) {
        filling();
        cur_->elements = elements;
        cur_->first_in_array = elements_so_far_ == 0;  // the array is empty when this starts
        elements_so_far_ += elements;
        {
            std::lock_guard<std::mutex> lock(m_);
            pending_.push_back(cur_.get());
            in_order_.push_back(std::move(cur_));
        }
        work_cv_.notify_one();
        while (in_order_.size() > max_in_flight_ || front_done()) write_oldest();
    }
    // Writes every batch handed over, in order; rethrows a worker's exception
    // (the first batch's to fail).
    void finish() {
        while (!in_order_.empty()) write_oldest();
    }

private:
    struct Slot {
        Batch batch;
        uint32_t elements = 0;
        bool first_in_array = false;
        std::string text;
        bool done = false;
        std::exception_ptr error;
    };

    std::unique_ptr<Slot> take_free() {
        if (free_.empty()) return std::make_unique<Slot>();
        auto s = std::move(free_.back());
        free_.pop_back();
        return s;
    }

    bool front_done() {
        std::lock_guard<std::mutex> lock(m_);
        return !in_order_.empty() && in_order_.front()->done;
    }

    void write_oldest() {
        std::unique_lock<std::mutex> lock(m_);
        done_cv_.wait(lock, [&] { return in_order_.front()->done; });
        std::unique_ptr<Slot> s = std::move(in_order_.front());
        in_order_.pop_front();
        lock.unlock();
        if (s->error) std::rethrow_exception(s->error);
        w_.raw_elements(s->text, s->elements);
        s->batch.clear();
        s->done = false;
        s->text.clear();
        free_.push_back(std::move(s));
    }

    void work() {
        for (;;) {
            Slot* s = nullptr;
            {
                std::unique_lock<std::mutex> lock(m_);
                work_cv_.wait(lock, [&] { return stop_ || !pending_.empty(); });
                if (stop_) return;
                s = pending_.front();
                pending_.pop_front();
            }
            std::exception_ptr error;
            try {
                encode(*s);
            } catch (...) {
                error = std::current_exception();
            }
            {
                std::lock_guard<std::mutex> lock(m_);
                s->error = error;
                s->done = true;
            }
            done_cv_.notify_all();
        }
    }

    // Into s.text, which keeps its capacity from the batch before.
    void encode(Slot& s) const {
        AppendBuf buf;
        buf.out = &s.text;
        std::ostream os(&buf);
        JsonStream js(os, w_.indent());
        js.resume_inside(depth_, s.first_in_array ? 0 : 1);
        encode_(s.batch, js);
        js.flush();
        if (!os) throw std::runtime_error("JSON report: could not append a batch's text");
    }

    JsonStream& w_;
    const size_t depth_;
    const Encode encode_;
    const size_t max_in_flight_;
    uint64_t elements_so_far_ = 0;
    std::unique_ptr<Slot> cur_;
    std::vector<std::unique_ptr<Slot>> free_;
    std::mutex m_;
    std::condition_variable work_cv_, done_cv_;
    std::deque<Slot*> pending_;                    // to encode, oldest first
    std::deque<std::unique_ptr<Slot>> in_order_;   // handed over, not yet written
    std::vector<std::thread> threads_;
    bool stop_ = false;
};

} // namespace stallscope
