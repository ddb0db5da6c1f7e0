#include "core/data/JsonObject.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonParseError>

namespace scalex::data {

Expected<QJsonObject> parseJsonObject(const QByteArray& bytes, const std::string& file, const std::string& expected) {
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &err);
    if (err.error != QJsonParseError::NoError) {
        int line = 1;
        for (int i = 0; i < err.offset && i < bytes.size(); ++i)
            if (bytes[i] == '\n') ++line;
        return LoadError{file, line, "", "invalid JSON (" + err.errorString().toStdString() + ")"};
    }
    if (!doc.isObject()) return LoadError{file, 1, "", "expected a JSON object (" + expected + ")"};
    return doc.object();
}

Expected<QByteArray> readSmallJsonFile(const std::string& path, const std::string& what) {
    // QFile with an empty name prints "QFSFileEngine::open: No file name specified" itself.
    if (path.empty()) return LoadError{"\"\"", 0, "", "no file named (the path is empty)"};
    const QFileInfo info(QString::fromStdString(path));
    if (!info.exists()) return LoadError{path, 0, "", "no such file"};
    if (info.isDir()) return LoadError{path, 0, "", "is a folder, not a file"};
    QFile f(info.filePath());
    if (!f.open(QIODevice::ReadOnly)) return LoadError{path, 0, "", "cannot open: " + f.errorString().toStdString()};
    if (f.size() > (16 << 20)) return LoadError{path, 0, "", what + " is a small JSON object; this file is over 16 MiB"};
    return f.readAll();
}

}  // namespace scalex::data
