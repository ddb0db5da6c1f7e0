#pragma once
// Benchmark results as JSON (Qt's QJsonDocument): what `scalex bench --out` writes and the
// roofline view reads back. Format "scalex-bench" version 1; see toJson for the keys.
#include <QJsonObject>
#include <QString>

#include "gpu/Bench.h"

namespace scalex::gpu {

inline constexpr int kBenchJsonVersion = 1;

QJsonObject toJson(const BenchReport& report);
// Throws std::runtime_error naming the offending key (e.g. "measurements[3].seconds: expected a number").
BenchReport benchReportFromJson(const QJsonObject& object);

// File helpers; errors name the file (and the key for malformed content).
void saveBenchReport(const BenchReport& report, const QString& path);
BenchReport loadBenchReport(const QString& path);

}  // namespace scalex::gpu
