#pragma once
// One source column of many rows, as text: dictionary-coded while it repeats (a run name, a model
// size, a step shared by every run), a pool of bytes once most values are new (a loss). A million
// cells of a repeated value cost four bytes each, of a fresh number about its length plus eight.
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace scalex::data {

class TextColumn {
public:
    TextColumn() = default;
    // A copy indexes its own dictionary (the index holds views into the strings).
    TextColumn(const TextColumn& other);
    TextColumn& operator=(const TextColumn& other);
    TextColumn(TextColumn&&) noexcept = default;
    TextColumn& operator=(TextColumn&&) noexcept = default;

    void push(std::string_view cell);
    std::string_view at(std::size_t row) const;
    std::size_t size() const { return pooled_ ? ends_.size() : constant_ ? constantRows_ : codes_.size(); }
    void reserve(std::size_t rows);
    // Keeps the rows whose `keep` is true, in order.
    void keepRows(const std::vector<bool>& keep);
    // Bytes held (for reports and benchmarks).
    std::size_t bytes() const;

private:
    void toPool();

    bool pooled_ = false;
    // While every cell is the same (an empty column, a run's one dataset), no codes are kept.
    bool constant_ = true;
    std::size_t constantRows_ = 0;
    // Dictionary form. A deque keeps the strings in place, so the index's views stay valid.
    std::vector<std::uint32_t> codes_;
    std::deque<std::string> dictionary_;
    std::unordered_map<std::string_view, std::uint32_t> index_;
    std::uint32_t lastCode_ = 0;
    std::size_t reserved_ = 0;  // rows announced by reserve()
    // Pool form: the cells back to back, and where each ends.
    std::string pool_;
    std::vector<std::uint64_t> ends_;
};

}  // namespace scalex::data
