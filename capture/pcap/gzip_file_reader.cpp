#include "capture/pcap/gzip_file_reader.h"

#include "capture/pcap/reader_support.h"

namespace stallscope::capture_detail {

GzipFileReader::GzipFileReader(std::unique_ptr<PcapFileReader> inner, std::shared_ptr<GzipState> state,
                               std::string path)
    : inner_(std::move(inner)), state_(std::move(state)), path_(std::move(path)) {}

PcapFileReader::Status GzipFileReader::next(Frame& out) {
    if (!error_.empty()) return Status::Error;
    const Status st = inner_->next(out);
    if (st == Status::Ok || state_->problem.empty()) return st;
    // The decompressed data stopped early. If it stopped between two
    // records the plain reader saw a clean end: that is still damage.
    const uint64_t at = st == Status::Error ? inner_->error_offset() : state_->uncompressed_pos;
    std::string reason = state_->problem + " (after " + std::to_string(state_->problem_compressed_offset) + " of " +
                         std::to_string(state_->compressed_size) + " compressed bytes, " +
                         std::to_string(state_->uncompressed_pos) + " bytes decompressed)";
    if (st == Status::Error) {
        std::string inner = inner_->error();
        if (inner.rfind(path_ + ": ", 0) == 0) inner.erase(0, path_.size() + 2);
        const auto cut = inner.rfind(" (offset ");
        if (cut != std::string::npos) inner.erase(cut);
        reason += "; " + inner;
    }
    error_offset_ = at;
    error_ = file_error(path_, reason, at);
    return Status::Error;
}

} // namespace stallscope::capture_detail
