#include "core/data/StrictCsv.h"

#include <QFile>
#include <string_view>

#include "core/data/CsvReader.h"

namespace scalex::data {

QByteArray readFileBytes(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        throw LoadFailure(QStringLiteral("%1: cannot open: %2").arg(path, file.errorString()).toStdString(),
                          LoadError{path.toStdString(), 0, {}, "cannot open: " + file.errorString().toStdString()});
    return file.readAll();
}

StrictCsv readStrictCsv(QByteArray bytes, const QString& path) {
    StrictCsv csv;
    csv.path = path;
    if (bytes.startsWith("\xEF\xBB\xBF")) bytes.remove(0, 3);
    // '#' lines are comments (the shipped tables carry their source there); blank them so the
    // tokenizer skips them and line numbers stay those of the file.
    for (qsizetype pos = 0; pos < bytes.size();) {
        qsizetype eol = bytes.indexOf('\n', pos);
        if (eol < 0) eol = bytes.size();
        if (bytes[pos] == '#') bytes.replace(pos, eol - pos, QByteArray());
        else pos = eol;
        pos = bytes.indexOf('\n', pos);
        if (pos < 0) break;
        ++pos;
    }
    const auto table = readDelimited(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())),
                                     path.toStdString(), ',');
    if (!table) throw LoadFailure(table.error().toString(), table.error());
    csv.headerLine = table->headerLine;
    for (const auto& h : table->header) csv.header << QString::fromStdString(h).trimmed();
    for (const auto& r : table->rows) {
        QStringList fields;
        for (const auto& c : r.cells) fields << QString::fromStdString(c).trimmed();
        if (fields.size() != csv.header.size())
            csv.fail(r.line, QStringLiteral("expected %1 fields (as the header), found %2").arg(csv.header.size()).arg(fields.size()));
        csv.rows.push_back({r.line, fields});
    }
    return csv;
}

}  // namespace scalex::data
