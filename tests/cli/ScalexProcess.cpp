#include "tests/cli/ScalexProcess.h"

#include <QJsonDocument>
#include <QProcess>
#include <gtest/gtest.h>

namespace scalex::test {

QJsonObject ProcessResult::json() const {
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(out.toUtf8(), &error);
    EXPECT_EQ(error.error, QJsonParseError::NoError) << error.errorString().toStdString() << "\n" << out.toStdString();
    EXPECT_TRUE(doc.isObject());
    return doc.object();
}

ProcessResult runScalex(const QStringList& args, int timeoutMs) {
    QProcess p;
    p.start(QStringLiteral(SCALEX_EXECUTABLE), args);
    ProcessResult r;
    if (!p.waitForFinished(timeoutMs)) {
        ADD_FAILURE() << "scalex " << args.join(' ').toStdString() << " did not finish";
        p.kill();
        p.waitForFinished();
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

}  // namespace scalex::test
