#pragma once
// Several capture files read as one capture (issue 24): a dumpcap ring
// (`run_00001_20261126093000.pcapng`, ...), tcpdump -C files (`run`, `run1`,
// `run2`, ...) or any list. Frames come in timestamp order (files that
// overlap in time are merged; a tie keeps the earlier file first) and are
// numbered across the set; locate() says which file and frame each number
// was. A file that cannot be opened, or damage inside one, is a note (the
// caller warns) and a gap, not an error, unless no file can be read.
// Memory: one open reader per file whose time range has begun.
#include "capture/frame_runs.h"
#include "capture/pcap/pcap_file_reader.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace stallscope {

class FileSetReader final : public PcapFileReader {
public:
    struct Note {
        std::string message;   // names the file
        uint64_t frame = 0;    // the set's frames read before it
        uint64_t offset = 0;   // byte offset in that file, where known
    };

    // nullptr when no file of the set can be read (error names them).
    static std::unique_ptr<FileSetReader> open(const std::vector<std::string>& paths, std::string& error);
    ~FileSetReader() override;

    Status next(Frame& out) override;
    const std::string& error() const override { return error_; }
    uint64_t error_offset() const override { return 0; }
    uint64_t file_size() const override { return total_size_; }
    uint64_t position() const override;
    std::string format() const override { return format_; }

    const std::vector<std::string>& files() const { return paths_; }
    const std::vector<Note>& notes() const { return notes_; }
    const std::vector<FrameRun>& runs() const { return runs_; }
    // File index and frame number within it of set frame `n` (false: not read).
    bool locate(uint64_t n, uint32_t& file, uint64_t& file_frame) const { return locate_in_runs(runs_, n, file, file_frame); }

private:
    struct Member;
    FileSetReader() = default;
    void open_due();
    void advance(size_t active_index);

    std::vector<std::string> paths_;
    std::vector<std::unique_ptr<Member>> members_;  // sorted by first timestamp
    size_t next_member_ = 0;                        // the next one not opened yet
    std::vector<Member*> active_;
    Member* pending_ = nullptr;                     // gave out its frame: read its next one first
    uint64_t number_ = 0;
    uint64_t total_size_ = 0, done_bytes_ = 0;
    std::string format_, error_;
    std::vector<Note> notes_;
    std::vector<FrameRun> runs_;
};

// The files of the set `first` belongs to, in order, found by name as
// Wireshark's File Set dialog finds them: a dumpcap ring file
// `prefix_NNNNN_YYYYmmddHHMMSS.ext` brings every file of the same prefix and
// extension; a tcpdump -C file `name` (or `nameN`) brings `name`, `name1`,
// `name2`... Any other name is a set of one. Numbers missing between two
// files found are reported in `missing` (a gap the caller warns about).
std::vector<std::string> expand_file_set(const std::string& first, std::vector<std::string>& missing);

} // namespace stallscope
