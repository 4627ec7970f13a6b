#include "analyzers/report/json_calls.h"

#include "analyzers/report/append_buf.h"

#include "analyzers/accounting/xml_sample.h"
#include "analyzers/report/json_call_record.h"
#include "analyzers/result/result_spill.h"

#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <ostream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace stallscope {

namespace {

// Calls per batch: enough that a batch's hand-over costs little beside its
// encoding, few enough that the batches in flight stay small.
constexpr size_t kBatchCalls = 256;

struct Batch {
    std::vector<Call> calls;  // reused: assigning into them keeps their memory
    std::vector<uint8_t> measured;
    size_t n = 0;
    bool first_in_array = false;
    std::string text;
    bool done = false;
};

// This thread fills batches and writes them back in order; workers encode.
// At most 2 batches per worker are in flight, so memory stays bounded.
class ParallelCallWriter {
public:
    ParallelCallWriter(JsonStream& w, int indent, unsigned workers, CallJsonFn write_call, int64_t t0)
        : w_(w), indent_(indent), depth_(w.depth()), write_call_(write_call), t0_(t0), max_in_flight_(2 * size_t(workers)) {
        for (unsigned i = 0; i < workers; ++i) threads_.emplace_back([this] { work(); });
    }
    ~ParallelCallWriter() {
        {
            std::lock_guard<std::mutex> lock(m_);
            stop_ = true;
        }
        work_cv_.notify_all();
        for (auto& t : threads_) t.join();
    }

    void add(const Call& c, bool measured) {
        if (!cur_) cur_ = take_free();
        Batch& b = *cur_;
        if (b.n < b.calls.size()) b.calls[b.n] = c;
        else b.calls.push_back(c);
        if (b.n < b.measured.size()) b.measured[b.n] = measured;
        else b.measured.push_back(measured);
        if (++b.n == kBatchCalls) submit();
    }

    // Writes what is left, in order.
    void finish() {
        if (cur_ && cur_->n) submit();
        while (!in_order_.empty()) write_oldest();
    }

private:
    std::unique_ptr<Batch> take_free() {
        if (free_.empty()) return std::make_unique<Batch>();
        auto b = std::move(free_.back());
        free_.pop_back();
        return b;
    }

    void submit() {
        cur_->first_in_array = written_or_queued_ == 0;
        written_or_queued_ += cur_->n;
        {
            std::lock_guard<std::mutex> lock(m_);
            pending_.push_back(cur_.get());
            in_order_.push_back(std::move(cur_));
        }
        work_cv_.notify_one();
        while (in_order_.size() > max_in_flight_ || front_done()) write_oldest();
    }

    bool front_done() {
        std::lock_guard<std::mutex> lock(m_);
        return !in_order_.empty() && in_order_.front()->done;
    }

    void write_oldest() {
        std::unique_lock<std::mutex> lock(m_);
        done_cv_.wait(lock, [&] { return in_order_.front()->done; });
        if (error_) std::rethrow_exception(error_);
        std::unique_ptr<Batch> b = std::move(in_order_.front());
        in_order_.pop_front();
        lock.unlock();
        w_.raw_elements(b->text, uint32_t(b->n));
        b->n = 0;
        b->done = false;
        b->text.clear();
        free_.push_back(std::move(b));
    }

    void work() {
        for (;;) {
            Batch* b = nullptr;
            {
                std::unique_lock<std::mutex> lock(m_);
                work_cv_.wait(lock, [&] { return stop_ || !pending_.empty(); });
                if (stop_) return;
                b = pending_.front();
                pending_.pop_front();
            }
            std::exception_ptr error;
            try {
                encode(*b);
            } catch (...) {
                error = std::current_exception();
            }
            {
                std::lock_guard<std::mutex> lock(m_);
                if (error && !error_) error_ = error;
                b->done = true;
            }
            done_cv_.notify_all();
        }
    }

    // Into b.text, which keeps its capacity from the batch before.
    void encode(Batch& b) const {
        AppendBuf buf;
        buf.out = &b.text;
        std::ostream os(&buf);
        JsonStream js(os, indent_);
        js.resume_inside(depth_, b.first_in_array ? 0 : 1);
        for (size_t i = 0; i < b.n; ++i) write_call_(js, b.calls[i], t0_, b.measured[i] != 0);
        js.flush();
        if (!os) throw std::runtime_error("JSON calls: could not append a batch's text");
    }

    JsonStream& w_;
    const int indent_;
    const size_t depth_;
    const CallJsonFn write_call_;
    const int64_t t0_;
    const size_t max_in_flight_;
    uint64_t written_or_queued_ = 0;
    std::unique_ptr<Batch> cur_;
    std::vector<std::unique_ptr<Batch>> free_;
    std::mutex m_;
    std::condition_variable work_cv_, done_cv_;
    std::deque<Batch*> pending_;                     // to encode, oldest first
    std::deque<std::unique_ptr<Batch>> in_order_;    // submitted, not yet written
    std::vector<std::thread> threads_;
    bool stop_ = false;
    std::exception_ptr error_;
};

} // namespace

CallsWritten write_calls_json(JsonStream& w, int indent, const AnalysisResult& r, unsigned threads, CallJsonFn write_call) {
    if (r.spill && r.spill->calls_are_records()) return write_call_records(w, indent, r);  // made already
    XmlCallSelector sample(xml_sampling_of(r));
    CallsWritten out;
    auto pick = [&](const Call& k) {
        const bool measured = sample.selected(k) && whole_xml_measured(k);
        ++out.calls;
        out.measured += measured;
        return measured;
    };
    if (threads <= 1) {
        for_each_call(r, [&](const Call& k) {
            write_call(w, k, r.capture.first_ns, pick(k));
            return true;
        });
        return out;
    }
    ParallelCallWriter writer(w, indent, threads, write_call, r.capture.first_ns);
    for_each_call(r, [&](const Call& k) {
        writer.add(k, pick(k));
        return true;
    });
    writer.finish();
    return out;
}

} // namespace stallscope
