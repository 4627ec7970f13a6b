#include "capture/pcap/file_set_reader.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>

namespace stallscope {

struct FileSetReader::Member {
    std::string path;
    uint32_t index = 0;                      // into paths_
    std::unique_ptr<PcapFileReader> reader;  // while its frames are being read
    Frame cur;
    uint64_t local = 0;                      // cur's number in its file
    int64_t first_ns = 0;
    uint64_t size = 0;
};

FileSetReader::~FileSetReader() = default;

std::unique_ptr<FileSetReader> FileSetReader::open(const std::vector<std::string>& paths, std::string& error) {
    std::unique_ptr<FileSetReader> set(new FileSetReader);
    set->paths_ = paths;
    std::string first_error;
    for (uint32_t i = 0; i < paths.size(); ++i) {
        std::string why;
        auto r = PcapFileReader::open(paths[i], why);
        std::error_code size_ec;
        // No bytes at all: a ring's newest file, killed between its creation
        // and its header; nothing was in it, so it is no gap.
        if (!r && std::filesystem::file_size(paths[i], size_ec) == 0 && !size_ec) continue;
        if (!r) {
            set->notes_.push_back({why + ": not read, a gap in the file set", 0, 0});
            if (first_error.empty()) first_error = why;
            continue;
        }
        // Its first frame's time places it in the set; it is opened again when due
        // (a ring of hundreds of files keeps only the files being read open).
        Frame f;
        auto st = r->next(f);
        if (st == Status::End) continue;  // an empty file (a ring's last one, cut at once)
        if (st == Status::Error) {
            set->notes_.push_back({r->error() + ": not read, a gap in the file set", 0, r->error_offset()});
            continue;
        }
        auto m = std::make_unique<Member>();
        m->path = paths[i];
        m->index = i;
        m->first_ns = f.ts_ns;
        m->size = r->file_size();
        set->total_size_ += m->size;
        if (set->format_.empty()) set->format_ = r->format();
        set->members_.push_back(std::move(m));
    }
    if (set->members_.empty()) {
        error = first_error.empty() ? (paths.empty() ? std::string("no capture file given") : paths[0] + ": no frames in any file of the set")
                                    : first_error;
        return nullptr;
    }
    std::stable_sort(set->members_.begin(), set->members_.end(),
                     [](const auto& a, const auto& b) { return a->first_ns < b->first_ns; });
    return set;
}

// Opens every file whose first frame is not later than the earliest frame
// waiting: only those can hold the next frame in time order.
void FileSetReader::open_due() {
    while (next_member_ < members_.size()) {
        Member& m = *members_[next_member_];
        if (!active_.empty()) {
            int64_t earliest = active_.front()->cur.ts_ns;
            for (Member* a : active_) earliest = std::min(earliest, a->cur.ts_ns);
            if (m.first_ns > earliest) return;
        }
        ++next_member_;
        std::string why;
        m.reader = PcapFileReader::open(m.path, why);
        if (!m.reader) {
            notes_.push_back({why + ": not read, a gap in the file set", number_, 0});
            continue;
        }
        if (m.reader->next(m.cur) != Status::Ok) {
            notes_.push_back({m.path + ": could not be read again, a gap in the file set", number_, 0});
            m.reader.reset();
            continue;
        }
        m.local = 1;
        active_.push_back(&m);
    }
}

// The member whose frame was given out moves to its next frame (or leaves).
void FileSetReader::advance(size_t i) {
    Member& m = *active_[i];
    auto st = m.reader->next(m.cur);
    if (st == Status::Ok) {
        ++m.local;
        return;
    }
    if (st == Status::Error)
        notes_.push_back({m.reader->error() + "; the rest of this file is a gap in the file set (analysed the " +
                              std::to_string(m.local) + " frames before it)",
                          number_, m.reader->error_offset()});
    done_bytes_ += m.size;
    m.reader.reset();
    active_.erase(active_.begin() + ptrdiff_t(i));
}

PcapFileReader::Status FileSetReader::next(Frame& out) {
    if (pending_) {
        auto it = std::find(active_.begin(), active_.end(), pending_);
        pending_ = nullptr;
        if (it != active_.end()) advance(size_t(it - active_.begin()));
    }
    open_due();
    if (active_.empty()) return Status::End;
    // Earliest frame; a tie goes to the file that comes first in the set.
    size_t best = 0;
    for (size_t i = 1; i < active_.size(); ++i)
        if (active_[i]->cur.ts_ns < active_[best]->cur.ts_ns) best = i;
    Member& m = *active_[best];
    out = m.cur;
    out.number = ++number_;
    add_to_runs(runs_, number_, m.index, m.local);
    pending_ = &m;
    return Status::Ok;
}

uint64_t FileSetReader::position() const {
    uint64_t p = done_bytes_;
    for (const Member* m : active_) p += m->reader->position();
    return p;
}

namespace {

namespace fs = std::filesystem;

// Files in `dir` named prefix + number + suffix (number: digits), by number.
std::map<uint64_t, std::string> numbered(const fs::path& dir, const std::regex& re) {
    std::map<uint64_t, std::string> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir.empty() ? fs::path(".") : dir, ec)) {
        std::smatch m;
        const std::string name = e.path().filename().string();
        if (!std::regex_match(name, m, re)) continue;
        const std::string digits = m[1].str();
        if (digits.size() > 18) continue;
        out.emplace(digits.empty() ? 0 : std::stoull(digits), (dir / name).string());
    }
    return out;
}

std::string regex_escape(const std::string& s) {
    static const std::regex special(R"([.^$|()\[\]{}*+?\\])");
    return std::regex_replace(s, special, R"(\$&)");
}

// The files by number, and the numbers missing between them.
std::vector<std::string> in_order(const std::map<uint64_t, std::string>& files, uint64_t first_number,
                                  std::vector<uint64_t>& missing) {
    std::vector<std::string> out;
    uint64_t expect = first_number;
    for (const auto& [n, path] : files) {
        for (; expect < n && missing.size() < 1000; ++expect) missing.push_back(expect);
        out.push_back(path);
        expect = n + 1;
    }
    return out;
}

} // namespace

std::vector<std::string> expand_file_set(const std::string& first, std::vector<std::string>& missing) {
    const fs::path p(first);
    const fs::path dir = p.parent_path();
    const std::string name = p.filename().string();
    // dumpcap: prefix_NNNNN_YYYYmmddHHMMSS.ext
    static const std::regex ring(R"((.*)_(\d{5,})_(\d{14})(\.[^.]+)?)");
    std::smatch m;
    if (std::regex_match(name, m, ring)) {
        const std::string prefix = m[1].str(), ext = m[4].str();
        const std::regex member(regex_escape(prefix) + R"(_(\d{5,})_\d{14})" + regex_escape(ext));
        auto files = numbered(dir, member);
        if (files.size() > 1) {
            std::vector<uint64_t> miss;
            auto out = in_order(files, files.begin()->first, miss);
            for (uint64_t n : miss) {
                std::string digits = std::to_string(n);
                digits.insert(0, digits.size() < 5 ? 5 - digits.size() : 0, '0');
                missing.push_back((dir / (prefix + "_" + digits + "_*" + ext)).string());
            }
            return out;
        }
        return {first};
    }
    // tcpdump -C: name, name1, name2, ...
    std::error_code ec;
    if (fs::exists(fs::path(first + "1"), ec)) {
        auto files = numbered(dir, std::regex(regex_escape(name) + R"((\d*))"));
        std::vector<uint64_t> miss;
        auto out = in_order(files, 0, miss);
        for (uint64_t n : miss) missing.push_back((dir / (name + std::to_string(n))).string());
        return out;
    }
    return {first};
}

} // namespace stallscope
