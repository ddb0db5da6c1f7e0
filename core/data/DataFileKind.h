#pragma once
// What a data file holds, told from its extension and header as `scalex check` does: a project,
// loss curves (run_id and step columns), inference measurements (a ttft column) or a run table.
#include <QString>
#include <string>
#include <vector>

namespace scalex::data {

enum class DataFileKind { RunTable, LossCurves, InferenceMeasurements, Project };

// The column names of a plain comma-separated file's first line ('#' comment lines skipped);
// empty for compressed or JSON files and files that cannot be read.
std::vector<std::string> plainTableHeader(const QString& path);
DataFileKind dataFileKind(const QString& path);

}  // namespace scalex::data
