#pragma once
// A strict reader for the small comma-separated tables of the study and the paper (inference
// measurements, the appendix model table, accelerator tables): every row must have as many
// fields as the header, and any value that is not what a column expects throws a LoadFailure
// naming the file, line, column and what was expected. Loaders catch it at their boundary.
#include <QByteArray>
#include <QString>
#include <QStringList>
#include <cmath>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/data/LoadError.h"

namespace scalex::data {

// Thrown by the strict readers; a loader turns it into its caller's error string (what()) or LoadError.
struct LoadFailure : std::runtime_error {
    LoadFailure(const std::string& text, LoadError e) : std::runtime_error(text), error(std::move(e)) {}
    LoadError error;
};

// A strict reader for comma-separated files on the shared tokenizer (core/data/CsvReader.h;
// '#' lines are comments): every row must have as many fields as the header.
struct StrictCsv {
    QString path;
    QStringList header;
    struct Row {
        int line = 0;
        QStringList fields;
    };
    std::vector<Row> rows;

    [[noreturn]] void fail(int line, const QString& what) const {
        throw LoadFailure(QStringLiteral("%1:%2: %3").arg(path).arg(line).arg(what).toStdString(),
                          LoadError{path.toStdString(), line, {}, what.toStdString()});
    }
    [[noreturn]] void fail(const Row& row, int column, const QString& what) const {
        throw LoadFailure(QStringLiteral("%1:%2:%3 (%4): %5")
                              .arg(path)
                              .arg(row.line)
                              .arg(column + 1)
                              .arg(header.value(column))
                              .arg(what)
                              .toStdString(),
                          LoadError{path.toStdString(), row.line, header.value(column).toStdString(), what.toStdString()});
    }

    int column(const QString& name) const { return static_cast<int>(header.indexOf(name)); }
    int requiredColumn(const QString& name) const {
        const int c = column(name);
        if (c < 0) fail(headerLine, QStringLiteral("missing column '%1'").arg(name));
        return c;
    }
    int firstColumn(std::initializer_list<const char*> names) const {
        for (const char* n : names)
            if (int c = column(QString::fromLatin1(n)); c >= 0) return c;
        return -1;
    }

    double number(const Row& row, int column) const {
        bool ok = false;
        const double v = row.fields[column].toDouble(&ok);
        if (!ok || !std::isfinite(v))
            fail(row, column, QStringLiteral("expected a number, got '%1'").arg(row.fields[column]));
        return v;
    }
    // Whole numbers become 64-bit counts: beyond 2^53 a double no longer holds them exactly.
    double wholeNumber(const Row& row, int column, double min) const {
        const double v = number(row, column);
        if (v != std::floor(v) || v < min)
            fail(row, column,
                 QStringLiteral("expected a whole number >= %1, got '%2'").arg(min).arg(row.fields[column]));
        if (v > 9007199254740992.0)
            fail(row, column, QStringLiteral("expected a whole number up to 2^53, got '%1'").arg(row.fields[column]));
        return v;
    }
    // A measured value: -1 marks failure, anything else must be positive.
    double measured(const Row& row, int column) const {
        if (column < 0) return -1;
        const double v = number(row, column);
        if (v == -1) return -1;
        if (!(v > 0))
            fail(row, column, QStringLiteral("expected a positive value or -1 (failed), got '%1'").arg(row.fields[column]));
        return v;
    }

    int headerLine = 0;
};

// The bytes of a file; a LoadFailure when it cannot be opened.
QByteArray readFileBytes(const QString& path);

// Parses comma-separated bytes ('#' lines are comments); `path` names them in errors.
StrictCsv readStrictCsv(QByteArray bytes, const QString& path);

}  // namespace scalex::data
