#include "core/data/JsonObject.h"

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

}  // namespace scalex::data
