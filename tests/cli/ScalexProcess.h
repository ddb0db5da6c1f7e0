#pragma once
// Runs the built `scalex` binary and captures what a user would see.
#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace scalex::test {

struct ProcessResult {
    int exitCode = -1;
    QString out;
    QString err;
    QJsonObject json() const;  // stdout parsed as one JSON object (fails the test otherwise)
};

ProcessResult runScalex(const QStringList& args, int timeoutMs = 120000);

}  // namespace scalex::test
