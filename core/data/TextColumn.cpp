#include "core/data/TextColumn.h"

#include <algorithm>
#include <cstring>

namespace scalex::data {

namespace {
// A column turns into a pool when its dictionary holds more than this many values and more than
// half as many values as rows: past that, codes no longer save memory.
constexpr std::size_t kDictionaryFloor = 1024;
}  // namespace

TextColumn::TextColumn(const TextColumn& other)
    : pooled_(other.pooled_), constant_(other.constant_), constantRows_(other.constantRows_), codes_(other.codes_), dictionary_(other.dictionary_), lastCode_(other.lastCode_),
      pool_(other.pool_), ends_(other.ends_) {
    for (std::size_t i = 0; i < dictionary_.size(); ++i) index_.emplace(std::string_view(dictionary_[i]), static_cast<std::uint32_t>(i));
}

TextColumn& TextColumn::operator=(const TextColumn& other) {
    if (this != &other) *this = TextColumn(other);
    return *this;
}

void TextColumn::reserve(std::size_t rows) {
    reserved_ = rows;
    if (pooled_) ends_.reserve(rows);
    else if (!constant_) codes_.reserve(rows);
}

void TextColumn::push(std::string_view cell) {
    if (pooled_) {
        pool_.append(cell);
        ends_.push_back(pool_.size());
        return;
    }
    if (constant_) {
        if (dictionary_.empty() || dictionary_.front() == cell) {
            if (dictionary_.empty()) {
                dictionary_.emplace_back(cell);
                index_.emplace(std::string_view(dictionary_.back()), 0u);
            }
            ++constantRows_;
            return;
        }
        // A second value: from here on every row has a code.
        codes_.reserve(std::max(reserved_, constantRows_ + 1));
        codes_.assign(constantRows_, 0u);
        constant_ = false;
    }
    // A run's rows repeat its name and size, and runs logged on one schedule repeat the same steps in
    // turn: the last code and the one after it are tried before hashing.
    if (dictionary_[lastCode_] == cell) {
        codes_.push_back(lastCode_);
        return;
    }
    if (lastCode_ + 1 < dictionary_.size() && dictionary_[lastCode_ + 1] == cell) {
        codes_.push_back(++lastCode_);
        return;
    }
    if (auto it = index_.find(cell); it != index_.end()) {
        codes_.push_back(lastCode_ = it->second);
        return;
    }
    const auto code = static_cast<std::uint32_t>(dictionary_.size());
    dictionary_.emplace_back(cell);
    index_.emplace(std::string_view(dictionary_.back()), code);
    codes_.push_back(lastCode_ = code);
    if (dictionary_.size() > kDictionaryFloor && dictionary_.size() * 2 > codes_.size()) toPool();
}

void TextColumn::toPool() {
    std::string pool;
    std::vector<std::uint64_t> ends;
    ends.reserve(codes_.capacity());
    for (auto c : codes_) {
        pool.append(dictionary_[c]);
        ends.push_back(pool.size());
    }
    pool_ = std::move(pool);
    ends_ = std::move(ends);
    codes_ = {};
    index_ = {};
    dictionary_ = {};
    pooled_ = true;
}

std::string_view TextColumn::at(std::size_t row) const {
    if (constant_) return dictionary_.front();
    if (!pooled_) return dictionary_[codes_[row]];
    const std::size_t begin = row ? ends_[row - 1] : 0;
    return std::string_view(pool_).substr(begin, ends_[row] - begin);
}

void TextColumn::keepRows(const std::vector<bool>& keep) {
    // In place: a row moves only towards the front, so nothing is held twice.
    std::size_t out = 0;
    if (constant_) {
        for (std::size_t i = 0; i < constantRows_; ++i) out += keep[i];
        constantRows_ = out;
        return;
    }
    if (!pooled_) {
        for (std::size_t i = 0; i < codes_.size(); ++i)
            if (keep[i]) codes_[out++] = codes_[i];
        codes_.resize(out);
        return;
    }
    std::size_t begin = 0, write = 0;
    for (std::size_t i = 0; i < ends_.size(); ++i) {
        const std::size_t end = ends_[i];
        if (keep[i]) {
            if (write != begin) std::memmove(pool_.data() + write, pool_.data() + begin, end - begin);
            write += end - begin;
            ends_[out++] = write;
        }
        begin = end;
    }
    // No shrink_to_fit: a column loses a few rows (each run's last), and a copy of the rest would
    // cost more time and for a moment more memory than the spare capacity.
    ends_.resize(out);
    pool_.resize(write);
}

std::size_t TextColumn::bytes() const {
    std::size_t b = codes_.capacity() * sizeof(std::uint32_t) + ends_.capacity() * sizeof(std::uint64_t) + pool_.capacity();
    for (const auto& s : dictionary_) b += s.capacity() + sizeof(std::string) + 16;
    return b;
}

}  // namespace scalex::data
