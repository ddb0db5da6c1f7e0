#pragma once
// Test helpers: where the shared study data lives, and a reader for the simple
// (unquoted) reference CSV files the tests compare against.
#include <QByteArray>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

namespace scalex::test {

// ../shared beside the checkout; empty when absent.
QString sharedDir();
QString sharedPath(const QString& relative);
QString sourcePath(const QString& relative);

// Skips the calling test when ../shared is not beside the checkout (CI always has it).
#define SCALEX_REQUIRE_SHARED()                                                  \
    do {                                                                         \
        if (::scalex::test::sharedDir().isEmpty())                               \
            GTEST_SKIP() << "../shared (the study's data) is not beside the checkout"; \
    } while (0)

struct SimpleCsv {
    QStringList header;
    QList<QStringList> rows;
    int column(const QString& name) const;  // fails the test if the column is missing
    QString at(int row, const QString& name) const { return rows[row][column(name)]; }
    double number(int row, const QString& name) const;
};

// The whole file's bytes; empty when it cannot be read.
QByteArray fileBytes(const QString& path);

// The loss-surface view's `fit` table as `render --table fit` writes it: parameter -> value (its
// second and fourth columns); empty when the file cannot be read.
QMap<QString, double> surfaceFitTable(const QString& path);

// Reads a comma-separated file without quoted fields; lines starting with '#' are comments.
SimpleCsv readSimpleCsv(const QString& path);

}  // namespace scalex::test
