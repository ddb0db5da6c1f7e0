// Results computed once (core/analysis/ResultCache.h): a view's figure drawn and then exported reads
// the analyses it drew from the one cache, and so do another figure of the same view, a recipe's
// render and `render --table` in the same process. Their tables are those of a cold computation,
// to the last digit.
#include <gtest/gtest.h>

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <functional>

#include "app/figures/Render.h"
#include "app/figures/ViewFigure.h"
#include "core/analysis/ResultCache.h"
#include "core/analysis/Study.h"
#include "core/data/Export.h"
#include "core/data/InferenceMeasurements.h"
#include "core/data/Project.h"
#include "tests/support/GuiApp.h"
#include "tests/support/TestData.h"

using namespace scalex;

namespace {

// The built-in example, with the study's inference measurements where ../shared has them.
const analysis::Study& exampleStudy() {
    static const analysis::Study study = [] {
        QString error;
        auto project = data::loadExampleProject(&error);
        EXPECT_TRUE(project) << error.toStdString();
        analysis::Study s;
        if (project) s.setProject(std::move(*project));
        const QString measured = test::sharedPath("data/xlstm/inference_results_df_dict_xlstm.csv");
        if (QFile::exists(measured)) {
            data::ProjectInference inference;
            inference.name = "measured";
            inference.source = measured.toStdString();
            auto loaded = data::loadInferenceMeasurements(measured, &error);
            EXPECT_TRUE(loaded) << error.toStdString();
            if (loaded) inference.data = std::move(*loaded);
            s.setInference(std::move(inference));
        }
        return s;
    }();
    return study;
}

// The results the shared cache computes while `ask` runs.
std::size_t computedBy(const std::function<void()>& ask) {
    const std::size_t before = analysis::ResultCache::shared().computed();
    ask();
    return analysis::ResultCache::shared().computed() - before;
}

QByteArray tablesOf(const figures::ViewFigure& figure, const figures::FigureInput& in) {
    QByteArray out;
    const auto job = figure.tablesJob(in);
    if (!job) return out;
    for (const auto& t : job(fit::FitControl{})) out += t.id.toUtf8() + ": " + data::toRecordsJson(t.table) + "\n";
    return out;
}

struct Case {
    const char* view;
    QJsonObject controls;
    // The table holds what the drawing does not compute (bootstrap intervals): its first export
    // computes them, once.
    bool exportComputes = false;
    bool measurements = false;  // needs the study's inference measurements
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.view; }

class CachedFigures : public ::testing::TestWithParam<Case> {
protected:
    void SetUp() override {
        test::ensureGuiApplication("scalex_cached_figures_test");
        analysis::ResultCache::shared().clear();
    }
};

}  // namespace

TEST_P(CachedFigures, DrawingThenExportingComputesNothingTwice) {
    const Case c = GetParam();
    const analysis::Study& study = exampleStudy();
    if (c.measurements && study.inferenceSets().empty()) GTEST_SKIP() << "no ../shared measurements";
    const figures::FigureInput in{&study};
    // Draws the view in a new figure, as the window, a recipe or `render` does, and exports its tables.
    struct Drawn {
        std::size_t drawing = 0, exporting = 0;
        QByteArray tables;
    };
    auto drawAndExport = [&] {
        Drawn d;
        auto figure = figures::makeFigure(QString::fromLatin1(c.view));
        EXPECT_TRUE(figure);
        if (!figure) return d;
        EXPECT_TRUE(figure->setControls(c.controls, in).isEmpty());
        d.drawing = computedBy([&] {
            figure->compute(in);
            figure->draw(in);
        });
        EXPECT_TRUE(figure->problem().isEmpty()) << figure->problem().toStdString();
        d.exporting = computedBy([&] { d.tables = tablesOf(*figure, in); });
        // Exported again (the Export dialog, another format): nothing.
        EXPECT_EQ(computedBy([&] { EXPECT_EQ(tablesOf(*figure, in), d.tables); }), 0u);
        return d;
    };
    const Drawn cold = drawAndExport();
    EXPECT_GT(cold.drawing, 0u) << "the drawing computes its analyses";
    if (c.exportComputes) EXPECT_GT(cold.exporting, 0u);
    else EXPECT_EQ(cold.exporting, 0u) << "the export reads what the drawing computed";
    ASSERT_FALSE(cold.tables.isEmpty());
    const Drawn warm = drawAndExport();
    EXPECT_EQ(warm.drawing + warm.exporting, 0u) << "another figure of the view reads the kept results";
    EXPECT_EQ(warm.tables, cold.tables);
}

INSTANTIATE_TEST_SUITE_P(Views, CachedFigures,
                         ::testing::Values(Case{"isoflop", {}}, Case{"overtraining", {}, true}, Case{"pareto", {{"curves", "off"}}},
                                           Case{"context", {}},
                                           Case{"laws", {{"law2", "none"}, {"law3", "none"}, {"starts", 4}, {"resamples", 0}}},
                                           Case{"inference", {}, false, true}),
                         [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.view); });

// A recipe's render and then `render --table` of the same view in one process: the table computes
// nothing, and is the file a cold `render --table` writes.
TEST(CachedRender, ATableRenderedAfterTheFigureReadsItsResults) {
    test::ensureGuiApplication("scalex_cached_figures_test");
    const analysis::Study& study = exampleStudy();
    QTemporaryDir dir;
    figures::RenderRequest figure;
    figure.view = "isoflop";
    figure.out = dir.filePath("isoflop.svg");
    figures::RenderRequest table = figure;
    table.out = dir.filePath("laws.csv");
    QString error;
    analysis::ResultCache::shared().clear();
    ASSERT_TRUE(figures::renderTable(study, table, "laws", &error)) << error.toStdString();
    QFile cold(table.out);
    ASSERT_TRUE(cold.open(QIODevice::ReadOnly));
    const QByteArray coldCsv = cold.readAll();
    cold.close();
    ASSERT_TRUE(QFile::remove(table.out));

    analysis::ResultCache::shared().clear();
    EXPECT_GT(computedBy([&] { ASSERT_TRUE(figures::renderFigure(study, figure, &error)) << error.toStdString(); }), 0u);
    EXPECT_EQ(computedBy([&] { ASSERT_TRUE(figures::renderTable(study, table, "laws", &error)) << error.toStdString(); }), 0u);
    QFile warm(table.out);
    ASSERT_TRUE(warm.open(QIODevice::ReadOnly));
    EXPECT_EQ(warm.readAll(), coldCsv);
}
