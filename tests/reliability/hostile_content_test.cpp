// Hostile content opened in the explorer window (offscreen): recipes that name views and
// controls that do not exist, a large CSV, NaN and infinities in every numeric column, text that
// is not UTF-8, a header of 10,000 columns. Each case checks what the user is told (the runs
// view's summary, the recipes dialog's message, the error), that no row is lost (rows with
// problems are kept and reported), and that the file on disk is left as it was.
#include <gtest/gtest.h>

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QTabWidget>
#include <QTemporaryDir>
#include <cmath>

#include "app/gui/MainWindow.h"
#include "app/gui/RecipesDialog.h"
#include "app/gui/RunsView.h"
#include "app/gui/Session.h"
#include "app/gui/ViewPanel.h"
#include "core/data/Project.h"
#include "tests/support/GuiApp.h"
#include "tests/support/TestData.h"

using namespace scalex;
using namespace scalex::gui;

namespace {

class HostileContent : public ::testing::Test {
protected:
    void SetUp() override {
        test::ensureGuiApplication("scalex_hostile_content_test");
        ASSERT_TRUE(dir.isValid());
        window = std::make_unique<MainWindow>();
        window->resize(1200, 800);
        window->setAttribute(Qt::WA_DontShowOnScreen, true);
        window->show();
        QApplication::processEvents();
    }

    QString write(const QString& name, const QByteArray& bytes) {
        const QString path = dir.filePath(name);
        QFile f(path);
        EXPECT_TRUE(f.open(QIODevice::WriteOnly));
        f.write(bytes);
        return path;
    }
    // Opens `path` (not interactively: errors go to lastError and the status bar, no dialog),
    // visits every view so each draws the data (or only the runs table), and checks the file is
    // still as it was.
    bool openAndVisit(const QString& path, bool everyView = true) {
        const QByteArray before = test::fileBytes(path);
        const bool ok = window->openPath(path, false);
        for (int i = 0; i < window->views()->count() && everyView; ++i) {
            window->views()->setCurrentIndex(i);
            QApplication::processEvents();
        }
        EXPECT_EQ(test::fileBytes(path), before) << "opening changed the file on disk";
        return ok;
    }
    // The runs view's summary line: "N runs shown of M · K in the analyses · P with problems · FILE".
    QString summary() const {
        for (QLabel* label : window->findChildren<QLabel*>())
            if (label->text().contains(QStringLiteral(" runs shown of "))) return label->text();
        return {};
    }
    const data::RunTable& runs() const { return window->session()->runs(); }

    QTemporaryDir dir;
    std::unique_ptr<MainWindow> window;
};

}  // namespace

TEST_F(HostileContent, RecipesNamingViewsAndControlsThatDoNotExistAreReportedNotApplied) {
    ASSERT_TRUE(window->openExample(false));
    data::Project project = window->session()->project();
    data::FigureRecipe ghost;
    ghost.view = "no-such-view";
    project.recipes["ghost"] = ghost;
    data::FigureRecipe knobs;
    knobs.view = "pareto";
    knobs.controls = QJsonObject{{"No such control", 3}, {"another-missing", true}};
    knobs.include = {{"no-such-run", false}};
    project.recipes["knobs"] = knobs;
    const QString path = dir.filePath("hostile-recipes.scalex");
    ASSERT_FALSE(data::saveProject(project, path).has_value());

    ASSERT_TRUE(openAndVisit(path)) << window->lastError().toStdString();
    EXPECT_EQ(window->session()->recipes().size(), 2u);
    const QByteArray before = test::fileBytes(path);
    RecipesDialog dialog(window.get());
    EXPECT_FALSE(dialog.showRecipe("ghost"));
    EXPECT_TRUE(dialog.message().contains(QStringLiteral("Cannot show “ghost”: the recipe's view 'no-such-view' is not one of")))
        << dialog.message().toStdString();
    EXPECT_TRUE(dialog.showRecipe("knobs")) << dialog.message().toStdString();
    EXPECT_EQ(window->currentPanel()->viewId(), "pareto");
    EXPECT_TRUE(dialog.message().contains(QStringLiteral("the view has no control 'No such control'"))) << dialog.message().toStdString();
    EXPECT_TRUE(dialog.message().contains(QStringLiteral("the view has no control 'another-missing'"))) << dialog.message().toStdString();
    EXPECT_TRUE(dialog.message().contains(QStringLiteral("runs of the recipe not in the project: no-such-run")))
        << dialog.message().toStdString();
    // Both recipes are still there, and nothing was written.
    EXPECT_EQ(window->session()->recipes().size(), 2u);
    EXPECT_EQ(test::fileBytes(path), before);
}

// A large CSV: a million rows, the run-table row limit (999,999 generated and one with a
// problem), generated here; a row more is refused with an error naming the file and the line.
// The chart views are not visited: Qt Charts draws each run as a graphics item of its own, and a
// view with a million runs takes minutes to draw (RandomActions drives every view with 20,000
// runs). SCALEX_HOSTILE_ROWS sets another number of generated rows.
TEST_F(HostileContent, ALargeCsvOpensWithEveryRow) {
    const int rows = qEnvironmentVariableIsSet("SCALEX_HOSTILE_ROWS") ? qEnvironmentVariableIntValue("SCALEX_HOSTILE_ROWS") : 999999;
    QByteArray csv = "run_id,model_family,num_params,num_tokens_training,val_loss,context_length\n";
    csv.reserve(static_cast<qsizetype>(rows) * 64);
    for (int i = 0; i < rows; ++i) {
        const double n = 1e8 * (1 + i % 97), d = n * (10 + i % 13);
        csv += "r" + QByteArray::number(i) + (i % 2 ? ",llama," : ",xlstm,") + QByteArray::number(n, 'g', 10) + ',' +
               QByteArray::number(d, 'g', 10) + ',' + QByteArray::number(2.5 + 0.001 * (i % 500), 'g', 6) + ",8192\n";
    }
    // One bad row at the end: kept and reported.
    csv += "bad,llama,-5,1e9,3.0,8192\n";
    const QString path = write("large.csv", csv);
    ASSERT_TRUE(openAndVisit(path, false)) << window->lastError().toStdString();
    ASSERT_EQ(runs().runs.size(), static_cast<std::size_t>(rows + 1));
    const data::Run& bad = runs().runs.back();
    EXPECT_EQ(bad.runId, "bad");
    EXPECT_EQ(bad.sourceLine, rows + 2);
    ASSERT_TRUE(bad.hasProblems());
    EXPECT_EQ(bad.problems.front(), "num_params: must be positive, got -5");
    window->showView("runs");
    QApplication::processEvents();
    EXPECT_TRUE(summary().startsWith(QStringLiteral("%1 runs shown of %1 · ").arg(rows + 1))) << summary().toStdString();
    EXPECT_TRUE(summary().contains(QStringLiteral(" · 1 with problems · large.csv"))) << summary().toStdString();
    if (rows + 1 != 1000000) return;

    // A file that cannot be read at its last row (a quoted field never closed) is refused as a
    // whole, and the million runs stay open. (The row limit is 50 million: LoadOptions::maxRows.)
    csv += "\"one-more,llama,1e8,1e9,3.0,8192\n";
    const QString over = write("unclosed.csv", csv);
    csv.clear();
    EXPECT_FALSE(openAndVisit(over, false));
    EXPECT_EQ(window->lastError(), over + ", line 1000002, column 'run_id': a quoted field opened here is never closed "
                                          "(truncated file, or a stray '\"'?)");
    EXPECT_EQ(runs().runs.size(), 1000000u);
}

TEST_F(HostileContent, NanAndInfinitiesInEveryNumericColumnAreKeptAndReported) {
    const QStringList numeric{"num_params", "num_tokens_training", "num_flops_training", "val_loss", "train_loss",
                              "context_length", "d_model", "n_layers", "n_heads", "learning_rate", "global_batch_size"};
    const QStringList good{"160000000", "3.2e9", "3.1e18", "3.3", "3.4", "8192", "768", "12", "12", "0.001", "256"};
    QByteArray csv = "run_id,model_family," + numeric.join(',').toUtf8() + "\n";
    csv += "ok,llama," + good.join(',').toUtf8() + "\n";
    int expectedBad = 0;
    for (int c = 0; c < numeric.size(); ++c)
        for (const char* value : {"nan", "NaN", "inf", "-inf", "Infinity"}) {
            QStringList cells = good;
            cells[c] = QString::fromLatin1(value);
            csv += QStringLiteral("r%1-%2,llama,").arg(numeric[c], QString::fromLatin1(value)).toUtf8() + cells.join(',').toUtf8() + "\n";
            ++expectedBad;
        }
    const QString path = write("nan-inf.csv", csv);
    ASSERT_TRUE(openAndVisit(path)) << window->lastError().toStdString();
    ASSERT_EQ(runs().runs.size(), static_cast<std::size_t>(expectedBad + 1));
    EXPECT_FALSE(runs().runs.front().hasProblems());
    for (std::size_t i = 1; i < runs().runs.size(); ++i) {
        const data::Run& r = runs().runs[i];
        const QString column = QString::fromStdString(r.runId).section('-', 0, 0).mid(1);
        SCOPED_TRACE(r.runId);
        ASSERT_TRUE(r.hasProblems());
        bool named = false;
        for (const auto& p : r.problems) named |= QString::fromStdString(p).startsWith(column + ": ");
        EXPECT_TRUE(named) << "no problem names the column " << column.toStdString() << ": " << r.problems.front();
        EXPECT_FALSE(window->session()->inAnalysis(r));
    }
    window->showView("runs");
    QApplication::processEvents();
    EXPECT_TRUE(summary().contains(QStringLiteral("%1 runs shown of %1 · 1 in the analyses · %2 with problems · nan-inf.csv")
                                       .arg(expectedBad + 1)
                                       .arg(expectedBad)))
        << summary().toStdString();
}

TEST_F(HostileContent, TextThatIsNotUtf8IsKeptAndReported) {
    QByteArray csv = "run_id,name,model_family,num_params,num_tokens_training,val_loss\n";
    csv += "r1,caf\xe9 latin-1,llama,1.6e8,3.2e9,3.3\n";
    csv += "r2,\xff\xfe\x80 junk,xlstm,4e8,8e9,3.1\n";
    csv += "r3,plain,xlstm,8e8,1.6e10,3.0\n";
    const QString path = write("latin1.csv", csv);
    ASSERT_TRUE(openAndVisit(path)) << window->lastError().toStdString();
    ASSERT_EQ(runs().runs.size(), 3u);
    for (int i : {0, 1}) {
        const data::Run& r = runs().runs[static_cast<std::size_t>(i)];
        ASSERT_TRUE(r.hasProblems()) << r.runId;
        EXPECT_EQ(r.problems.front(), "name: invalid UTF-8 (the bad bytes read as U+FFFD)");
        EXPECT_NE(QString::fromStdString(r.name).indexOf(QChar(0xFFFD)), -1);
    }
    EXPECT_EQ(runs().runs[0].name.substr(0, 3), "caf");
    EXPECT_FALSE(runs().runs[2].hasProblems());
    window->showView("runs");
    QApplication::processEvents();
    EXPECT_TRUE(summary().contains(QStringLiteral("3 runs shown of 3 · 1 in the analyses · 2 with problems · latin1.csv")))
        << summary().toStdString();
}

TEST_F(HostileContent, AHeaderOfTenThousandColumnsKeepsEveryCell) {
    constexpr int kExtra = 10000 - 5;
    QByteArray header = "run_id,model_family,num_params,num_tokens_training,val_loss";
    for (int c = 0; c < kExtra; ++c) header += ",extra_" + QByteArray::number(c);
    QByteArray csv = header + "\n";
    for (int r = 0; r < 5; ++r) {
        csv += "r" + QByteArray::number(r) + ",llama," + QByteArray::number(1.6e8 * (r + 1), 'g', 10) + ",3.2e9,3." +
               QByteArray::number(r);
        for (int c = 0; c < kExtra; ++c) csv += ',' + QByteArray::number(r * 100000 + c);
        csv += "\n";
    }
    const QString path = write("wide.csv", csv);
    ASSERT_TRUE(openAndVisit(path)) << window->lastError().toStdString();
    ASSERT_EQ(runs().runs.size(), 5u);
    for (int r = 0; r < 5; ++r) {
        const data::Run& run = runs().runs[static_cast<std::size_t>(r)];
        EXPECT_FALSE(run.hasProblems()) << run.problems.front();
        EXPECT_EQ(run.raw.value("extra_0"), std::to_string(r * 100000));
        EXPECT_EQ(run.raw.value("extra_" + std::to_string(kExtra - 1)), std::to_string(r * 100000 + kExtra - 1));
    }
    window->showView("runs");
    QApplication::processEvents();
    EXPECT_TRUE(summary().startsWith(QStringLiteral("5 runs shown of 5 · 5 in the analyses · 0 with problems"))) << summary().toStdString();
    // Every column survives a save and a reload of the project.
    const QString saved = dir.filePath("wide.scalex");
    ASSERT_TRUE(window->saveProject(saved, false)) << window->lastError().toStdString();
    auto back = data::loadProject(saved);
    ASSERT_TRUE(back.ok()) << back.error().toString();
    const data::RunTable merged = back->mergedRuns();
    ASSERT_EQ(merged.runs.size(), 5u);
    EXPECT_EQ(merged.runs[4].raw.value("extra_" + std::to_string(kExtra - 1)), std::to_string(400000 + kExtra - 1));
}

// A file the window cannot use at all: one error naming the file and line, and the project shown
// before is kept.
TEST_F(HostileContent, AnUnusableFileLeavesTheOpenProjectAsItWas) {
    ASSERT_TRUE(window->openExample(false));
    const std::size_t before = runs().runs.size();
    const QString path = write("broken.csv", "run_id,num_params\nr1,\"160000000\nr2,5\n");
    EXPECT_FALSE(openAndVisit(path));
    EXPECT_TRUE(window->lastError().startsWith(path + ", line 2")) << window->lastError().toStdString();
    EXPECT_TRUE(window->lastError().contains("never closed")) << window->lastError().toStdString();
    EXPECT_EQ(runs().runs.size(), before);
}
