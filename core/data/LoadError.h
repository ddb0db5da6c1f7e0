#pragma once
// The one error a loader reports when a file cannot be used at all (DESIGN.md "Errors"): it
// names the file, the line, the column or field, and what was expected. Problems of single
// rows are not errors: those rows are kept and marked (Run::problems).
#include <string>
#include <utility>
#include <variant>

namespace scalex::data {

struct LoadError {
    std::string file;
    int line = 0;         // 1-based; 0 when the error concerns the whole file
    std::string column;   // column or field name; empty when none applies
    std::string message;  // what was found and what was expected
    bool key = false;     // the field is a key of a JSON object (a config.json's), not a table's column

    // "runs.csv, line 3, column 'val_loss': <message>", "config.json, key 'model_type': <message>"
    // (line and column or key left out when unknown)
    std::string toString() const {
        std::string s = file;
        if (line > 0) s += ", line " + std::to_string(line);
        if (!column.empty()) s += (key ? ", key '" : ", column '") + column + "'";
        return s + ": " + message;
    }
};

// A value or the LoadError that explains why there is none (std::expected is C++23).
template <class T>
class Expected {
public:
    Expected(T value) : state_(std::move(value)) {}
    Expected(LoadError error) : state_(std::move(error)) {}

    bool ok() const { return state_.index() == 0; }
    explicit operator bool() const { return ok(); }
    T& value() { return std::get<0>(state_); }
    const T& value() const { return std::get<0>(state_); }
    T& operator*() { return value(); }
    const T& operator*() const { return value(); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    const LoadError& error() const { return std::get<1>(state_); }
    T value_or(T fallback) const { return ok() ? value() : std::move(fallback); }

private:
    std::variant<T, LoadError> state_;
};

}  // namespace scalex::data
