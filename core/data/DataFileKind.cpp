#include "core/data/DataFileKind.h"

#include <QFile>

#include "core/data/InferenceMeasurements.h"
#include "core/data/LossCurves.h"
#include "core/data/TrackerJson.h"

namespace scalex::data {

std::vector<std::string> plainTableHeader(const QString& path) {
    const QString lower = path.toLower();
    for (const char* ext : {".gz", ".json", ".jsonl", ".ndjson", ".scalex"})
        if (lower.endsWith(QLatin1String(ext))) return {};
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    QByteArray line;
    for (int i = 0; i < 1000 && !f.atEnd(); ++i) {
        line = f.readLine(64 * 1024);
        if (i == 0 && line.startsWith("\xEF\xBB\xBF")) line.remove(0, 3);
        if (!line.startsWith('#') && !line.trimmed().isEmpty()) break;
        line.clear();
    }
    std::vector<std::string> header;
    if (line.trimmed().isEmpty()) return header;
    for (QByteArray cell : line.trimmed().split(',')) {
        cell = cell.trimmed();
        if (cell.size() >= 2 && cell.startsWith('"') && cell.endsWith('"')) cell = cell.mid(1, cell.size() - 2);
        header.push_back(cell.toStdString());
    }
    return header;
}

DataFileKind dataFileKind(const QString& path) {
    QString lower = path.toLower();
    if (lower.endsWith(QLatin1String(".gz"))) lower.chop(3);
    if (lower.endsWith(QLatin1String(".scalex"))) return DataFileKind::Project;
    if (isTrackerJsonFile(path)) return DataFileKind::LossCurves;  // an experiment tracker's export (TrackerJson.h)
    const std::vector<std::string> header = plainTableHeader(path);
    if (looksLikeLossCurves(header)) return DataFileKind::LossCurves;
    if (looksLikeInferenceMeasurements(header)) return DataFileKind::InferenceMeasurements;
    return DataFileKind::RunTable;
}

}  // namespace scalex::data
