#pragma once
// The reader of a gzip-compressed capture: the plain reader of what it
// decompresses to, with progress counted in compressed bytes (the file's
// size is all that is known beforehand) and the decompressor's complaints
// (a cut or damaged .gz) turned into the reader's error, naming the file,
// the decompressed offset and the compressed one.
#include "capture/pcap/gzip_stream.h"
#include "capture/pcap/pcap_file_reader.h"

namespace stallscope::capture_detail {

class GzipFileReader final : public PcapFileReader {
public:
    GzipFileReader(std::unique_ptr<PcapFileReader> inner, std::shared_ptr<GzipState> state, std::string path);

    Status next(Frame& out) override;
    const std::string& error() const override { return error_.empty() ? inner_->error() : error_; }
    uint64_t error_offset() const override { return error_.empty() ? inner_->error_offset() : error_offset_; }
    uint64_t file_size() const override { return state_->compressed_size; }
    uint64_t position() const override { return state_->compressed_position(); }
    std::string format() const override { return inner_->format() + " (gzip)"; }
    void set_secrets_sink(SecretsSink sink) override { inner_->set_secrets_sink(std::move(sink)); }

private:
    std::unique_ptr<PcapFileReader> inner_;
    std::shared_ptr<GzipState> state_;
    std::string path_;
    std::string error_;  // set when the decompressor's problem explains the end
    uint64_t error_offset_ = 0;
};

} // namespace stallscope::capture_detail
