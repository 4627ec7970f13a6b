#include "capture/pcap/pcapng_ring_writer.h"

#include <cstdio>
#include <ctime>
#include <filesystem>

namespace stallscope {

std::string PcapngRingWriter::ring_file_name(const std::string& out_path, uint64_t number, int64_t wall_s) {
    const std::filesystem::path p(out_path);
    const std::string ext = p.extension().string();
    const std::string stem = (p.parent_path() / p.stem()).string();
    // Local time, as dumpcap writes it.
    std::tm tm{};
    const std::time_t t = std::time_t(wall_s);
    localtime_r(&t, &tm);
    char buf[64];
    std::snprintf(buf, sizeof buf, "_%05llu_%04d%02d%02d%02d%02d%02d", (unsigned long long)number, tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
    return stem + buf + ext;
}

std::unique_ptr<PcapngRingWriter> PcapngRingWriter::create(const std::string& out_path, const PcapngInterface& iface,
                                                           const std::string& application, const RingOptions& ring,
                                                           std::string& error, const PcapngFlushPolicy& policy) {
    std::unique_ptr<PcapngRingWriter> w(new PcapngRingWriter);
    w->out_path_ = out_path;
    w->application_ = application;
    w->iface_ = iface;
    w->ring_ = ring;
    w->policy_ = policy;
    if (!w->open_next()) {
        error = w->error_;
        return nullptr;
    }
    return w;
}

PcapngRingWriter::~PcapngRingWriter() = default;

bool PcapngRingWriter::open_next() {
    std::string path = out_path_;
    if (ring_.enabled()) path = ring_file_name(out_path_, ++number_, std::time(nullptr));
    cur_ = PcapngStreamWriter::create(path, iface_, application_, error_, policy_);
    return cur_ != nullptr;
}

bool PcapngRingWriter::write_secrets(uint32_t secrets_type, const void* data, size_t size) {
    if (!cur_) return false;
    if (cur_->write_secrets(secrets_type, data, size)) return true;
    error_ = cur_->error();
    return false;
}

bool PcapngRingWriter::write(const Frame& f, int64_t now_ns, uint64_t* offset) {
    if (!cur_) return false;
    if (ring_.enabled() && cur_->packets() > 0 && cur_->bytes_written() >= ring_.file_bytes) {
        // The full file is synced and closed before the next one exists.
        if (!cur_->close()) {
            error_ = cur_->error();
            return false;
        }
        closed_.emplace_back(cur_->path(), cur_->bytes_written());
        cur_.reset();
        while (ring_.files && closed_.size() + 1 > ring_.files) {
            std::error_code ec;
            std::filesystem::remove(closed_.front().first, ec);
            closed_.pop_front();
            ++deleted_;
        }
        if (!open_next()) return false;
    }
    if (cur_->write(f, now_ns, offset)) return true;
    error_ = cur_->error();
    return false;
}

bool PcapngRingWriter::tick(int64_t now_ns) {
    if (!cur_) return false;
    if (cur_->tick(now_ns)) return true;
    error_ = cur_->error();
    return false;
}

bool PcapngRingWriter::flush() {
    if (!cur_) return false;
    if (cur_->flush()) return true;
    error_ = cur_->error();
    return false;
}

bool PcapngRingWriter::close(const uint64_t* received, const uint64_t* dropped, int64_t start_ns, int64_t end_ns) {
    if (!cur_) return error_.empty();
    if (cur_->close(received, dropped, start_ns, end_ns)) return true;
    error_ = cur_->error();
    return false;
}

uint64_t PcapngRingWriter::bytes_written() const {
    uint64_t n = cur_ ? cur_->bytes_written() : 0;
    for (const auto& c : closed_) n += c.second;
    return n;
}

std::vector<std::string> PcapngRingWriter::files() const {
    std::vector<std::string> out;
    for (const auto& c : closed_) out.push_back(c.first);
    if (cur_) out.push_back(cur_->path());
    return out;
}

} // namespace stallscope
