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

}  // namespace scalex::data
