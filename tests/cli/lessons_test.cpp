// `scalex --list-lessons` and `scalex --lesson ID --step K --screenshot`, run as a user would.
#include <gtest/gtest.h>

#include <QDir>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include "tests/cli/ScalexProcess.h"
#include "tests/support/TestData.h"

using scalex::test::runScalex;

TEST(Lessons, ListLessonsJsonGivesIdTitleAndStepsOfEveryShippedLesson) {
    const auto r = runScalex({"--list-lessons", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(r.out.toUtf8(), &error);
    ASSERT_EQ(error.error, QJsonParseError::NoError) << r.out.toStdString();
    ASSERT_TRUE(doc.isArray());
    // One entry per lesson file in resources/lessons/, read here from the source tree.
    const QStringList files = QDir(scalex::test::sourcePath("resources/lessons")).entryList({"*.json"}, QDir::Files, QDir::Name);
    ASSERT_EQ(doc.array().size(), files.size());
    for (int i = 0; i < files.size(); ++i) {
        QFile f(QDir(scalex::test::sourcePath("resources/lessons")).filePath(files[i]));
        ASSERT_TRUE(f.open(QIODevice::ReadOnly));
        const QJsonObject source = QJsonDocument::fromJson(f.readAll()).object();
        const QJsonObject listed = doc.array().at(i).toObject();
        EXPECT_EQ(listed.keys(), (QStringList{"id", "steps", "title"}));
        EXPECT_EQ(listed.value("id").toString(), source.value("id").toString());
        EXPECT_EQ(listed.value("title").toString(), source.value("title").toString());
        EXPECT_EQ(listed.value("steps").toInt(), source.value("steps").toArray().size());
        EXPECT_GE(listed.value("steps").toInt(), 4);
    }
    const auto plain = runScalex({"--list-lessons"});
    ASSERT_EQ(plain.exitCode, 0);
    EXPECT_TRUE(plain.out.contains("isoflop-to-law\tFrom IsoFLOP profiles to N*(H) (6 steps)")) << plain.out.toStdString();
}

TEST(Lessons, LessonStepRendersToAScreenshot) {
    QTemporaryDir dir;
    const QString out = dir.filePath("step.png");
    const auto r = runScalex({"--lesson", "isoflop-to-law", "--step", "3", "--screenshot", out, "--size", "1024x768"});
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    const QImage image(out);
    ASSERT_FALSE(image.isNull());
    EXPECT_EQ(image.size(), QSize(1024, 768));
}

namespace {
QByteArray screenshotOf(const QTemporaryDir& dir, const QString& lesson, int step, const QString& name) {
    const QString out = dir.filePath(name);
    const auto r = runScalex({"--lesson", lesson, "--step", QString::number(step), "--screenshot", out, "--size", "1024x768"});
    EXPECT_EQ(r.exitCode, 0) << r.err.toStdString();
    QFile f(out);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}
}  // namespace

// Two steps that show the same view with the same controls differ by the lesson pane's text, which
// is in the picture.
TEST(Lessons, ScreenshotsOfTwoStepsDiffer) {
    QTemporaryDir dir;
    const QByteArray a = screenshotOf(dir, "compute-optimal", 3, "a.png");
    const QByteArray b = screenshotOf(dir, "isoflop-to-law", 4, "b.png");
    ASSERT_FALSE(a.isEmpty());
    ASSERT_FALSE(b.isEmpty());
    EXPECT_NE(a, b);
}

// A step's picture is taken once its view's work is done and the window is at rest: the same bytes
// on every run (the Compute-optimal view's answer, coming late, used to leave its tables and scroll
// bar half laid out).
TEST(Lessons, TheSameStepGivesTheSameScreenshotEveryTime) {
    QTemporaryDir dir;
    const QByteArray first = screenshotOf(dir, "context-length", 4, "1.png");
    ASSERT_FALSE(first.isEmpty());
    for (int run = 2; run <= 3; ++run)
        EXPECT_EQ(screenshotOf(dir, "context-length", 4, QString::number(run) + ".png"), first) << "run " << run;
}

TEST(Lessons, BadLessonOptionsAreErrors) {
    QTemporaryDir dir;
    const QString out = dir.filePath("x.png");
    auto r = runScalex({"--lesson", "nosuch", "--screenshot", out});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_TRUE(r.err.contains("scalex: --lesson: nosuch: no lesson with this id and no such file (lessons: compute-optimal"))
        << r.err.toStdString();
    r = runScalex({"--lesson", "isoflop-to-law", "--step", "9", "--screenshot", out});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_TRUE(r.err.contains("the lesson has 6 steps; there is no step 9")) << r.err.toStdString();
    r = runScalex({"--lesson", "isoflop-to-law", "--step", "zero", "--screenshot", out});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_TRUE(r.err.contains("scalex: --step: expected a step number from 1, found 'zero'")) << r.err.toStdString();
    QFile bad(dir.filePath("bad.json"));
    ASSERT_TRUE(bad.open(QIODevice::WriteOnly));
    bad.write(R"({"id": "bad", "title": "Bad", "steps": [{"title": "t", "view": "isoflop", "text": "x", "highlight": "knob"}]})");
    bad.close();
    r = runScalex({"--lesson", bad.fileName(), "--screenshot", out});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_TRUE(r.err.contains("bad.json: field 'steps[0].highlight': the view 'isoflop' has no control 'knob'")) << r.err.toStdString();
    EXPECT_FALSE(QFile::exists(out));
}

TEST(Lessons, HelpListsTheWindowOptions) {
    const auto r = runScalex({"--help"});
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    for (const char* option : {"--view ID", "--theme light|dark", "--size WIDTHxHEIGHT", "--presentation", "--lesson ID|FILE",
                               "--list-lessons [--json]", "--screenshot OUT.png"})
        EXPECT_TRUE(r.out.contains(QString::fromLatin1(option))) << option << " missing from:\n" << r.out.toStdString();
}
