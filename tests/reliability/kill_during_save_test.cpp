// Saving a project is atomic (core/data/Project.cpp saveProject: QSaveFile writes a temporary
// file and renames it over the old one): a program killed at any moment leaves the old project
// or the new one on disk, never a broken or half-written file. A helper (SaveLoop.cpp) saves two
// large projects in turn at one path and is killed with SIGKILL at random moments; after each
// kill the file must be, byte for byte, one of the two and open.
// The seed of the kill moments is printed on failure; SCALEX_KILL_SEED replays it.
#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>
#include <algorithm>
#include <random>

#include "core/data/Project.h"
#include "tests/support/LargeProject.h"
#include "tests/support/TestData.h"

namespace {

constexpr std::size_t kRuns = 20000;
// SCALEX_KILL_COUNT sets another number of kills (the sanitizer stage of packaging/test.sh uses fewer).
const int kKills = qEnvironmentVariableIsSet("SCALEX_KILL_COUNT") ? std::max(2, qEnvironmentVariableIntValue("SCALEX_KILL_COUNT")) : 55;

}  // namespace

TEST(KillDuringSave, TheFileOnDiskIsAlwaysTheOldOrTheNewProject) {
    int argc = 1;
    char name[] = "scalex_kill_during_save_test";
    char* argv[] = {name, nullptr};
    QCoreApplication app(argc, argv);

    const std::uint64_t seed = qEnvironmentVariableIsSet("SCALEX_KILL_SEED")
                                   ? qEnvironmentVariable("SCALEX_KILL_SEED").toULongLong()
                                   : 20251123u;
    SCOPED_TRACE("seed " + std::to_string(seed) + " (replay with SCALEX_KILL_SEED=" + std::to_string(seed) + ")");
    std::mt19937_64 random(seed);

    const QString paperDir = scalex::test::sourcePath("datasets/paper");
    const auto oldProject = scalex::test::makeLargeProject(paperDir, kRuns, 0);
    const auto newProject = scalex::test::makeLargeProject(paperDir, kRuns, 1);
    std::size_t runs = 0;
    for (const auto& t : oldProject.tables) runs += t.table.runs.size();
    ASSERT_EQ(runs, kRuns);
    const auto oldBytes = scalex::data::writeProject(oldProject);
    const auto newBytes = scalex::data::writeProject(newProject);
    ASSERT_TRUE(oldBytes && newBytes);
    ASSERT_NE(*oldBytes, *newBytes);

    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath("large.scalex");
    QElapsedTimer saving;
    saving.start();
    ASSERT_FALSE(scalex::data::saveProject(oldProject, path).has_value());
    // Kill moments spread over about two saves after the helper is ready.
    const qint64 spreadMs = std::max<qint64>(20, 2 * saving.elapsed());

    // The helper saves variant 1 first (save 1), then 0, 1, ... (SaveLoop.cpp): save n writes
    // variant n % 2; before its first save the file holds what the previous helper left.
    const QByteArray* variants[2] = {&*oldBytes, &*newBytes};
    int atStart = 0;  // the variant on disk when a helper starts
    int duringSave = 0, previous = 0, replaced = 0;
    for (int kill = 0; kill < kKills; ++kill) {
        SCOPED_TRACE("kill " + std::to_string(kill + 1));
        QProcess helper;
        helper.setProgram(QStringLiteral(SCALEX_SAVE_LOOP));
        helper.setArguments({path, paperDir, QString::number(kRuns)});
        helper.setProcessChannelMode(QProcess::SeparateChannels);
        helper.start();
        ASSERT_TRUE(helper.waitForStarted(30000)) << helper.errorString().toStdString();
        QByteArray out;
        while (!out.contains("ready\n")) {
            ASSERT_TRUE(helper.waitForReadyRead(60000)) << "the helper never got ready: " << helper.readAllStandardError().toStdString();
            out += helper.readAllStandardOutput();
        }
        const auto delay = std::uniform_int_distribution<qint64>(0, spreadMs)(random);
        QThread::msleep(static_cast<unsigned long>(delay));
        helper.kill();  // SIGKILL
        ASSERT_TRUE(helper.waitForFinished(30000));
        ASSERT_EQ(helper.exitStatus(), QProcess::CrashExit) << "the helper stopped by itself: "
                                                            << helper.readAllStandardError().toStdString();
        out += helper.readAllStandardOutput();
        // The last save the helper finished, and the one under way when it was killed (if any).
        long finished = 0, underWay = 0;
        for (const QByteArray& line : out.trimmed().split('\n')) {
            if (line.startsWith("saved ")) finished = line.mid(6).toLong(), underWay = 0;
            else if (line.startsWith("saving ")) underWay = line.mid(7).toLong();
        }
        duringSave += underWay > 0;

        // The file is the project of the last finished save, or, when the kill came during a
        // save, possibly the one being saved (renamed into place just before the kill).
        const QByteArray onDisk = scalex::test::fileBytes(path);
        const int finishedVariant = finished == 0 ? atStart : static_cast<int>(finished % 2);
        const bool isFinished = onDisk == *variants[finishedVariant];
        const bool isUnderWay = underWay > 0 && onDisk == *variants[underWay % 2];
        ASSERT_TRUE(isFinished || isUnderWay)
            << "after a kill " << delay << " ms after start-up (" << finished << " saves finished, "
            << (underWay ? "one under way" : "none under way") << ") the file is neither project: " << onDisk.size()
            << " bytes, the projects " << oldBytes->size() << " and " << newBytes->size();
        atStart = onDisk == *variants[0] ? 0 : 1;
        previous += isFinished;
        replaced += !isFinished && isUnderWay;
        if (qEnvironmentVariableIsSet("SCALEX_KILL_VERBOSE")) std::printf("kill %d after %lld ms: %ld finished, %ld under way, file %s\n", kill + 1, static_cast<long long>(delay), finished, underWay, isFinished ? "finished" : "under way");
        auto loaded = scalex::data::loadProject(path);
        ASSERT_TRUE(loaded.ok()) << loaded.error().toString();
        EXPECT_EQ(loaded->mergedRuns().runs.size(), kRuns);
        // Nothing else is left beside it (no stray temporary files).
        EXPECT_EQ(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden), QStringList{"large.scalex"});
    }
    std::printf("%d kills (seed %llu): %d while a save was under way; the file held the last finished save %d times "
                "and the save under way (already renamed into place) %d times\n",
                kKills, static_cast<unsigned long long>(seed), duringSave, previous, replaced);
    // The kills must have hit saves, or the test proved nothing.
    EXPECT_GE(duringSave, kKills / 2);
}
