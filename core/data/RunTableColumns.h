#pragma once
// A run table as columns, the form a project keeps its run tables in (Project.h, format version 4;
// issue "Millions of rows"). Every field of every run is a column: numbers as packed little-endian
// values (doubles bit for bit), text dictionary-coded, small enumerations as one byte; a run's
// problems as a count per run beside one text column of them all; the compact checkpoints of
// each block (CheckpointRows.h) as their own columns with every source cell. Reading gives back
// the same table: the same runs in the same order with the same fields, problems, source cells
// and compact rows, and the same mapping, series choice and notes. Nothing is derived again.
//
// Layout of the bytes:
//   "scalex-columns\n\0"   16 bytes
//   u32 version             kRunColumnsVersion
//   u32 n, then n bytes     JSON: {"runs": rows, "columns": [{"name", "type", "bytes"}, ...],
//                           "blocks": [{"rows", "run_offset", "header"}], "mapping", "series_by",
//                           "series_considered", "notes"}
//   the columns' bytes back to back, in the order the JSON lists them
// Column types: f64, i64, i32, u32, u8 (n values each), and text: u32 d, d times (u32 length,
// bytes), then n u32 codes into that dictionary.
#include <QByteArray>
#include <string>

#include "core/data/LoadError.h"
#include "core/data/RunTable.h"

namespace scalex::data {

inline constexpr int kRunColumnsVersion = 1;

QByteArray encodeRunTableColumns(const RunTable& table);
// `file` names the bytes in errors (the project and its member); an error names the column too.
// The table's source is not kept (the project's manifest holds it).
Expected<RunTable> decodeRunTableColumns(const QByteArray& bytes, const std::string& file);

}  // namespace scalex::data
