#pragma once
// A cursor over untrusted bytes. Every read is bounds-checked and returns
// std::nullopt (or false) instead of reading past the end; a failed read does
// not move the cursor. Used for packet headers and pcapng blocks alike.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace stallscope {

enum class Endian { Big, Little };

class ByteReader {
public:
    ByteReader() = default;
    explicit ByteReader(std::span<const uint8_t> data) : data_(data) {}

    size_t size() const { return data_.size(); }
    size_t offset() const { return pos_; }
    size_t remaining() const { return data_.size() - pos_; }
    bool has(size_t n) const { return n <= remaining(); }
    std::span<const uint8_t> rest() const { return data_.subspan(pos_); }

    bool skip(size_t n) {
        if (!has(n)) return false;
        pos_ += n;
        return true;
    }
    std::optional<std::span<const uint8_t>> bytes(size_t n) {
        if (!has(n)) return std::nullopt;
        auto s = data_.subspan(pos_, n);
        pos_ += n;
        return s;
    }
    // A reader over the next n bytes (consumed from this one).
    std::optional<ByteReader> sub(size_t n) {
        auto s = bytes(n);
        if (!s) return std::nullopt;
        return ByteReader(*s);
    }

    std::optional<uint8_t> u8() {
        if (!has(1)) return std::nullopt;
        return data_[pos_++];
    }
    std::optional<uint8_t> peek_u8() const {
        if (!has(1)) return std::nullopt;
        return data_[pos_];
    }
    std::optional<uint16_t> be16() { return uint_n<uint16_t>(2, Endian::Big); }
    std::optional<uint32_t> be32() { return uint_n<uint32_t>(4, Endian::Big); }
    std::optional<uint16_t> le16() { return uint_n<uint16_t>(2, Endian::Little); }
    std::optional<uint32_t> le32() { return uint_n<uint32_t>(4, Endian::Little); }
    std::optional<uint16_t> u16(Endian e) { return uint_n<uint16_t>(2, e); }
    std::optional<uint32_t> u32(Endian e) { return uint_n<uint32_t>(4, e); }
    std::optional<uint64_t> u64(Endian e) { return uint_n<uint64_t>(8, e); }

private:
    template <typename T>
    std::optional<T> uint_n(size_t n, Endian e) {
        if (!has(n)) return std::nullopt;
        T v = 0;
        for (size_t i = 0; i < n; ++i) {
            size_t idx = (e == Endian::Big) ? i : n - 1 - i;
            v = static_cast<T>((v << 8) | data_[pos_ + idx]);
        }
        pos_ += n;
        return v;
    }

    std::span<const uint8_t> data_;
    size_t pos_ = 0;
};

} // namespace stallscope
