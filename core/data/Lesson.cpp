#include "core/data/Lesson.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QRegularExpression>
#include <optional>

namespace scalex::data {

namespace {

constexpr const char* kBuiltinLessonDir = ":/scalex/lessons";

LoadError fieldError(const std::string& file, const std::string& field, const std::string& message) {
    return {file, 0, {}, "field '" + field + "': " + message};
}

// 1-based line of a byte offset, for JSON syntax errors.
int lineOf(const QByteArray& text, qsizetype offset) {
    return 1 + static_cast<int>(text.left(offset).count('\n'));
}

// A required (or optional) string field; false with `error` set when it has another type or is
// missing / empty.
bool readString(const QJsonObject& o, const char* key, const std::string& path, const std::string& file, bool required,
                std::string* out, std::optional<LoadError>* error) {
    const QJsonValue v = o.value(QLatin1String(key));
    const std::string field = path.empty() ? std::string(key) : path + "." + key;
    if (v.isUndefined() || v.isNull()) {
        if (required) *error = fieldError(file, field, "missing; expected a string");
        return !required;
    }
    if (!v.isString()) {
        *error = fieldError(file, field, "expected a string");
        return false;
    }
    if (required && v.toString().trimmed().isEmpty()) {
        *error = fieldError(file, field, "is empty");
        return false;
    }
    *out = v.toString().toStdString();
    return true;
}

}  // namespace

Expected<Lesson> parseLesson(const QByteArray& json, const std::string& file) {
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return LoadError{file, lineOf(json, parseError.offset), {}, "not valid JSON: " + parseError.errorString().toStdString()};
    if (!doc.isObject()) return LoadError{file, 0, {}, "expected a JSON object with \"id\", \"title\" and \"steps\""};
    const QJsonObject root = doc.object();
    Lesson lesson;
    lesson.file = file;
    std::optional<LoadError> error;
    if (!readString(root, "id", "", file, true, &lesson.id, &error) ||
        !readString(root, "title", "", file, true, &lesson.title, &error) ||
        !readString(root, "summary", "", file, false, &lesson.summary, &error))
        return *error;
    static const QRegularExpression idPattern(QStringLiteral("^[a-z0-9][a-z0-9-]*$"));
    if (!idPattern.match(QString::fromStdString(lesson.id)).hasMatch())
        return fieldError(file, "id", "expected lower-case letters, digits and '-', found '" + lesson.id + "'");
    const QJsonValue steps = root.value(QStringLiteral("steps"));
    if (!steps.isArray()) return fieldError(file, "steps", steps.isUndefined() ? "missing; expected a list of steps" : "expected a list of steps");
    if (steps.toArray().isEmpty()) return fieldError(file, "steps", "is empty; a lesson needs at least one step");
    int index = 0;
    for (const QJsonValue& sv : steps.toArray()) {
        const std::string path = "steps[" + std::to_string(index++) + "]";
        if (!sv.isObject()) return fieldError(file, path, "expected an object with \"view\" and \"text\"");
        const QJsonObject so = sv.toObject();
        LessonStep step;
        if (!readString(so, "title", path, file, true, &step.title, &error) ||
            !readString(so, "view", path, file, true, &step.view, &error) ||
            !readString(so, "text", path, file, true, &step.text, &error) ||
            !readString(so, "highlight", path, file, false, &step.highlight, &error) ||
            !readString(so, "question", path, file, false, &step.question, &error))
            return *error;
        const QJsonValue controls = so.value(QStringLiteral("controls"));
        if (!controls.isUndefined() && !controls.isNull()) {
            if (!controls.isObject()) return fieldError(file, path + ".controls", "expected an object of control names and values");
            step.controls = controls.toObject();
            for (auto it = step.controls.constBegin(); it != step.controls.constEnd(); ++it)
                if (!it.value().isString() && !it.value().isDouble() && !it.value().isBool())
                    return fieldError(file, path + ".controls." + it.key().toStdString(), "expected a string, a number or true/false");
        }
        for (auto it = so.begin(); it != so.end(); ++it) {
            static const QStringList known{"title", "view", "text", "highlight", "question", "controls"};
            if (!known.contains(it.key()))
                return fieldError(file, path + "." + it.key().toStdString(),
                                  "unknown field (a step has title, view, controls, highlight, text, question)");
        }
        lesson.steps.push_back(std::move(step));
    }
    return lesson;
}

Expected<Lesson> loadLesson(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return LoadError{path.toStdString(), 0, {}, "cannot be read: " + f.errorString().toStdString()};
    constexpr qint64 kMaxBytes = 4 << 20;  // a lesson is text; refuse anything huge
    if (f.size() > kMaxBytes) return LoadError{path.toStdString(), 0, {}, "is larger than 4 MiB; not a lesson"};
    return parseLesson(f.readAll(), path.toStdString());
}

QStringList builtinLessonPaths() {
    QStringList out;
    const QDir dir(QString::fromLatin1(kBuiltinLessonDir));
    for (const QString& name : dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name)) out << dir.filePath(name);
    return out;
}

Expected<Lesson> findLesson(const QString& idOrPath) {
    for (const QString& path : builtinLessonPaths()) {
        auto lesson = loadLesson(path);
        if (lesson && QString::fromStdString(lesson->id) == idOrPath) return lesson;
    }
    if (QFileInfo(idOrPath).isFile()) return loadLesson(idOrPath);
    QStringList ids;
    for (const QString& path : builtinLessonPaths())
        if (auto lesson = loadLesson(path)) ids << QString::fromStdString(lesson->id);
    return LoadError{idOrPath.toStdString(), 0, {},
                     "no lesson with this id and no such file (lessons: " + ids.join(QStringLiteral(", ")).toStdString() + ")"};
}

}  // namespace scalex::data
