#pragma once
// A JSON file that must hold one object (a column mapping, a model's config.json): parsed, or an
// error naming the file and the line where the JSON breaks.
#include <QByteArray>
#include <QJsonObject>
#include <string>

#include "core/data/LoadError.h"

namespace scalex::data {

// `expected` says what the object is, for the error when the document is not one
// ("a model's config.json").
Expected<QJsonObject> parseJsonObject(const QByteArray& bytes, const std::string& file, const std::string& expected);

// The bytes of a small JSON file (at most 16 MiB), or an error naming the path: an empty path, a
// missing file, a folder and an unreadable file are each said in Scalex's words (Qt prints
// nothing). `what` names the file for the size error ("a model file").
Expected<QByteArray> readSmallJsonFile(const std::string& path, const std::string& what);

}  // namespace scalex::data
