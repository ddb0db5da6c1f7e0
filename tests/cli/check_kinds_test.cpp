// `scalex check` on every CSV of the study: run tables, loss curves and inference measurements.
#include <gtest/gtest.h>

#include <QDir>
#include <QJsonObject>

#include "tests/cli/ScalexProcess.h"
#include "tests/support/TestData.h"

using scalex::test::runScalex;

TEST(CheckVerb, LoadsEveryCsvOfTheStudyWithoutMapping) {
    SCALEX_REQUIRE_SHARED();
    const QString dir = scalex::test::sharedPath("data/xlstm");
    const QStringList files = QDir(dir).entryList({"*.csv"});
    ASSERT_EQ(files.size(), 17);
    for (const QString& name : files) {
        const auto r = runScalex({"check", dir + "/" + name, "--json"});
        EXPECT_EQ(r.exitCode, 0) << name.toStdString() << ": " << r.err.toStdString();
        const QJsonObject j = r.json();
        if (name.startsWith("curves_"))
            EXPECT_EQ(j["kind"].toString(), "loss_curves") << name.toStdString();
        else if (name.startsWith("inference_"))
            EXPECT_EQ(j["kind"].toString(), "inference_measurements") << name.toStdString();
    }
}
