// One figure by both paths: a view's figure drawn headless (app/figures, no window: what `scalex
// render`, recipes and the paper figures use) has the controls the window's view shows, with the
// same choices and values, and writes the same file as the window's view for the same controls.
// Also the controls' own rules: keys or text, rounded values, renamed controls, bad values.
#include <gtest/gtest.h>

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtCharts/QChart>
#include <array>
#include <atomic>
#include <cmath>
#include <utility>

#include "app/figures/Controls.h"
#include "app/figures/Render.h"
#include "app/figures/RunMarks.h"
#include "app/figures/ViewFigure.h"
#include "app/figures/views/ContextFigure.h"
#include "app/figures/views/LossSurfaceFigure.h"
#include "app/figures/views/ParetoFigure.h"
#include "app/gui/FigureExport.h"
#include "app/gui/MainWindow.h"
#include "app/gui/Recipes.h"
#include "app/gui/Session.h"
#include "app/gui/ViewPanel.h"
#include "core/analysis/ResultCache.h"
#include "core/analysis/Study.h"
#include "core/data/Export.h"
#include "core/data/RunTableIo.h"
#include "tests/support/GuiApp.h"
#include "tests/support/TestData.h"

using namespace scalex;
using figures::Control;
using figures::Controls;

namespace {

// The built-in example (or the shipped Gemstones study, which has loss curves) as the study a
// headless render reads.
analysis::Study exampleStudy(bool gemstones = false) {
    QString error;
    auto project = gemstones ? data::loadGemstonesExample(&error) : data::loadExampleProject(&error);
    EXPECT_TRUE(project) << error.toStdString();
    analysis::Study study;
    if (project) study.setProject(std::move(*project));
    return study;
}

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

class ViewFigures : public ::testing::Test {
protected:
    void SetUp() override { test::ensureGuiApplication("scalex_view_figures_test"); }
};

struct Case {
    const char* view;
    QJsonObject controls;
    bool gemstones = false;  // the shipped Gemstones study rather than the generated example
};

class BothPaths : public ViewFigures, public ::testing::WithParamInterface<Case> {};

void PrintTo(const Case& c, std::ostream* os) { *os << c.view << ' ' << QJsonDocument(c.controls).toJson(QJsonDocument::Compact).toStdString(); }

}  // namespace

// The window's view and the headless figure list the same controls, choices and values, and
// write the same SVG for the same controls.
TEST_P(BothPaths, TheHeadlessFigureIsTheWindowsFigure) {
    const Case c = GetParam();
    const QString view = QString::fromLatin1(c.view);
    QString error;
    auto window = gui::openHeadless(QString(), false, &error);
    ASSERT_TRUE(window) << error.toStdString();
    if (c.gemstones) ASSERT_TRUE(window->openGemstonesExample(false));
    ASSERT_TRUE(window->showView(view));
    gui::ViewPanel* panel = window->currentPanel();
    panel->computeNow();
    ASSERT_TRUE(gui::restoreControls(panel, c.controls).isEmpty());
    panel->computeNow();
    QCoreApplication::processEvents();

    const analysis::Study study = exampleStudy(c.gemstones);
    QString headless;
    ASSERT_TRUE(figures::describeControls(study, view, c.controls, &headless, &error)) << error.toStdString();
    EXPECT_EQ(headless.toStdString(), gui::describeControls(panel).toStdString());

    QTemporaryDir dir;
    figures::FigureStyle style;
    style.widthInches = 6.75;
    const QString fromWindow = dir.filePath("window.svg"), fromFigure = dir.filePath("figure.svg");
    ASSERT_TRUE(gui::exportPanel(panel, fromWindow, style, &error)) << error.toStdString();
    figures::RenderRequest request;
    request.view = view;
    request.out = fromFigure;
    request.style = style;
    request.controls = c.controls;
    ASSERT_TRUE(figures::renderFigure(study, request, &error)) << error.toStdString();
    const QByteArray a = readAll(fromWindow), b = readAll(fromFigure);
    ASSERT_FALSE(a.isEmpty());
    EXPECT_EQ(a.size(), b.size());
    EXPECT_TRUE(a == b) << "the SVGs differ";
}

// One instantiation per view: the cases of a view, its default controls first.
auto caseName = [](const auto& info) { return std::string(info.param.view) + "_" + std::to_string(info.index); };
INSTANTIATE_TEST_SUITE_P(Curves, BothPaths,
                         ::testing::Values(Case{"curves", {}, true}, Case{"curves", {{"axis", "compute"}}, true}), caseName);
INSTANTIATE_TEST_SUITE_P(Pareto, BothPaths,
                         ::testing::Values(Case{"pareto", {}}, Case{"pareto", {{"panels", "fig1"}}}, Case{"pareto", {{"curves", false}}},
                                           Case{"pareto", {{"panels", "fig1"}, {"context", "2048"}}}),
                         caseName);
INSTANTIATE_TEST_SUITE_P(IsoFlop, BothPaths,
                         ::testing::Values(Case{"isoflop", {}}, Case{"isoflop", {{"family", "both families"}}},
                                           Case{"isoflop", {{"panels", "fig5"}}}, Case{"isoflop", {{"axis", "tokens"}}},
                                           Case{"isoflop", {{"pick", true}, {"budget", 3.16e20}}}, Case{"isoflop", {{"law", "d"}}},
                                           Case{"isoflop", {{"family", "both families"}, {"context", 2048}}}),
                         caseName);
INSTANTIATE_TEST_SUITE_P(OverTraining, BothPaths,
                         ::testing::Values(Case{"overtraining", {}}, Case{"overtraining", {{"series", "xlstm"}}},
                                           Case{"overtraining", {{"series", "xLSTM"}, {"series2", "transformer"}}},
                                           Case{"overtraining", {{"context", 2048}}}),
                         caseName);
INSTANTIATE_TEST_SUITE_P(Context, BothPaths,
                         ::testing::Values(Case{"context", {}}, Case{"context", {{"context", 2048}}}, Case{"context", {{"context", 65536}}},
                                           Case{"context", {{"slider", 20}}},
                                           Case{"context", {{"budget", QString::fromUtf8("10²⁰ FLOPs")}}},
                                           Case{"context", {{"context", "32768"}, {"budget", QString::fromUtf8("10²⁴ FLOPs")}}}),
                         caseName);
INSTANTIATE_TEST_SUITE_P(Laws, BothPaths,
                         ::testing::Values(Case{"laws", {}}, Case{"laws", {{"law2", "none"}, {"axis", "params"}, {"split", "largest"}}},
                                           Case{"laws", {{"law1", "formula"}, {"formula1", "L = E + A/N^alpha"},
                                                         {"params1", "E=0:10, A=0:1e8, alpha=0:2"}, {"test", "N>=5e8"}}}),
                         caseName);
// The loss surface fits in its job (the paper's grid: seconds), so a few cases.
INSTANTIATE_TEST_SUITE_P(Surface, BothPaths,
                         ::testing::Values(Case{"surface", {}}, Case{"surface", {{"series", "xlstm"}, {"grid", "quick"}}},
                                           Case{"surface", {{"gamma", "fixed"}, {"grid", "quick"}}}),
                         caseName);

// What the Context view and the Pareto view's L̂(N,D) show depends on the study and the settings
// alone, not on the loss-surface view: the same numbers and files whether it fitted (here γ fixed
// over the quick grid, a surface neither draws) before them or after, in one window or another.
TEST_F(ViewFigures, TheContextAndParetoViewsAreTheSameWhetherOrNotTheLossSurfaceViewFittedFirst) {
    QTemporaryDir dir;
    figures::FigureStyle style;
    style.widthInches = 6.75;
    int files = 0;
    struct Drawn {
        QByteArray context, pareto;
        double transformer = 0, xlstm = 0;  // N* of the context view
        std::array<double, 6> paretoSurface{};
    };
    auto show = [&](gui::MainWindow& window, const QString& view, const QJsonObject& controls) {
        EXPECT_TRUE(window.showView(view));
        gui::ViewPanel* panel = window.currentPanel();
        EXPECT_TRUE(gui::restoreControls(panel, controls).isEmpty());
        panel->computeNow();
        QCoreApplication::processEvents();
        QString error;
        const QString file = dir.filePath(QStringLiteral("%1-%2.svg").arg(view).arg(++files));
        EXPECT_TRUE(gui::exportPanel(panel, file, style, &error)) << error.toStdString();
        return std::pair{panel, readAll(file)};
    };
    auto fitSurface = [&](gui::MainWindow& window) {
        const auto [panel, svg] = show(window, "surface", {{"gamma", "fixed"}, {"grid", "quick"}});
        const auto* surface = dynamic_cast<figures::LossSurfaceFigure*>(panel->figure());
        ASSERT_NE(surface, nullptr);
        ASSERT_TRUE(surface->result());
        EXPECT_EQ(surface->result()->best.gamma, 1.0);
    };
    auto drawBoth = [&](gui::MainWindow& window) {
        Drawn d;
        const auto [context, contextSvg] = show(window, "context", {});
        const auto* c = dynamic_cast<figures::ContextFigure*>(context->figure());
        EXPECT_NE(c, nullptr);
        if (c) d.transformer = c->optimalParams(false), d.xlstm = c->optimalParams(true);
        d.context = contextSvg;
        const auto [pareto, paretoSvg] = show(window, "pareto", {{"panels", "fig1"}});
        const auto* p = dynamic_cast<figures::ParetoFigure*>(pareto->figure());
        EXPECT_NE(p, nullptr);
        if (p && p->surfaceOf(accounting::Family::Transformer) && p->surfaceOf(accounting::Family::Transformer)->surface)
            d.paretoSurface = p->surfaceOf(accounting::Family::Transformer)->surface->asArray();
        d.pareto = paretoSvg;
        return d;
    };
    QString error;
    // The context and Pareto views first, then the loss surface, then both again.
    auto first = gui::openHeadless(QString(), false, &error);
    ASSERT_TRUE(first) << error.toStdString();
    const Drawn before = drawBoth(*first);
    fitSurface(*first);
    const Drawn again = drawBoth(*first);
    // A fresh window: the loss surface first.
    auto second = gui::openHeadless(QString(), false, &error);
    ASSERT_TRUE(second) << error.toStdString();
    fitSurface(*second);
    const Drawn after = drawBoth(*second);

    EXPECT_GT(before.transformer, 0);
    EXPECT_NE(before.paretoSurface[5], 1.0) << "the Pareto view's surface is its own fit (γ free), not the loss-surface view's";
    for (const Drawn* d : {&again, &after}) {
        EXPECT_EQ(d->transformer, before.transformer);
        EXPECT_EQ(d->xlstm, before.xlstm);
        EXPECT_EQ(d->paretoSurface, before.paretoSurface);
        EXPECT_FALSE(d->context.isEmpty());
        EXPECT_TRUE(d->context == before.context) << "the context view's SVGs differ";
        EXPECT_TRUE(d->pareto == before.pareto) << "the Pareto view's SVGs differ";
    }
}

// The IsoFLOP tables (laws with their bootstrap intervals, optima, laws per context) by both paths.
TEST_F(ViewFigures, TheHeadlessIsoFlopTablesAreTheWindows) {
    const QJsonObject controls{{"family", "both families"}, {"range", "all"}};
    QString error;
    auto window = gui::openHeadless(QString(), false, &error);
    ASSERT_TRUE(window) << error.toStdString();
    ASSERT_TRUE(window->showView("isoflop"));
    gui::ViewPanel* panel = window->currentPanel();
    ASSERT_TRUE(gui::restoreControls(panel, controls).isEmpty());
    const std::vector<gui::ViewTable> fromWindow = panel->tables();
    const analysis::Study study = exampleStudy();
    QTemporaryDir dir;
    for (const auto& table : fromWindow) {
        const QString id = table.id;
        const QString a = dir.filePath(id + "-window.csv"), b = dir.filePath(id + "-figure.csv");
        ASSERT_TRUE(figures::writeTable(fromWindow, "isoflop", id, a, &error)) << error.toStdString();
        figures::RenderRequest request;
        request.view = "isoflop";
        request.out = b;
        request.controls = controls;
        ASSERT_TRUE(figures::renderTable(study, request, id, &error)) << error.toStdString();
        EXPECT_FALSE(readAll(a).isEmpty());
        EXPECT_TRUE(readAll(a) == readAll(b)) << id.toStdString();
    }
    EXPECT_EQ(fromWindow.size(), 3u);
}
INSTANTIATE_TEST_SUITE_P(Optimal, BothPaths,
                         ::testing::Values(Case{"optimal", {}}, Case{"optimal", {{"chart", "path"}}}, Case{"optimal", {{"chart", "compute"}}},
                                           Case{"optimal", {{"method", "laws"}}}, Case{"optimal", {{"mode", "size"}, {"value", "3e9"}}},
                                           Case{"optimal", {{"method", "surface"}, {"context", "32768"}, {"chart", "compute"}}},
                                           Case{"optimal", {{"overtrain", 50}, {"inference", "1e13"}, {"chart", "path"}}}),
                         caseName);
INSTANTIATE_TEST_SUITE_P(Breakdown, BothPaths,
                         ::testing::Values(Case{"breakdown", {}}, Case{"breakdown", {{"quantity", "decode-traffic"}, {"shares", true}}},
                                           Case{"breakdown", {{"quantity", "state"}}},
                                           Case{"breakdown", {{"xlstmPreset", "1.42B (isoflop, d 2048, L 24)"}, {"shares", true}}}),
                         caseName);
INSTANTIATE_TEST_SUITE_P(Roofline, BothPaths,
                         ::testing::Values(Case{"roofline", {}}, Case{"roofline", {{"accelerator", "A100 SXM"}, {"model", "batch64"}}}),
                         caseName);
INSTANTIATE_TEST_SUITE_P(Inference, BothPaths,
                         ::testing::Values(Case{"inference", {}}, Case{"inference", {{"stage", "TTFT and step time (Fig. 6)"}}},
                                           Case{"inference", {{"stage", "Step time"}, {"accelerator", "B200"}}}),
                         caseName);

// With the study's inference measurements in the project, the headless figure fits them and
// draws what the window's view draws: its batch sizes and models, points and fitted curves.
TEST_F(ViewFigures, TheInferenceFigureOfAProjectsMeasurementsIsTheWindowsFigure) {
    SCALEX_REQUIRE_SHARED();
    QString error;
    auto window = gui::openHeadless(QString(), false, &error);
    ASSERT_TRUE(window) << error.toStdString();
    ASSERT_TRUE(window->openMeasurements(test::sharedPath("data/xlstm/inference_results_df_dict_xlstm.csv"), false))
        << window->lastError().toStdString();
    gui::ViewPanel* panel = window->currentPanel();
    ASSERT_EQ(panel->viewId(), "inference");
    const analysis::Study& study = window->session()->study();
    ASSERT_EQ(study.inferenceSets().size(), 1u);
    QTemporaryDir dir;
    int drawn = 0;
    for (const QJsonObject& controls : {QJsonObject{}, QJsonObject{{"stage", "TTFT and step time (Fig. 6)"}},
                                        QJsonObject{{"stage", "Step time"}, {"batch", "1"}, {"accelerator", "A100"}}}) {
        SCOPED_TRACE(QJsonDocument(controls).toJson(QJsonDocument::Compact).toStdString());
        ASSERT_TRUE(gui::restoreControls(panel, controls).isEmpty());
        panel->computeNow();
        QCoreApplication::processEvents();
        QString headless;
        ASSERT_TRUE(figures::describeControls(study, "inference", controls, &headless, &error)) << error.toStdString();
        EXPECT_EQ(headless.toStdString(), gui::describeControls(panel).toStdString());
        EXPECT_TRUE(headless.contains("batch\tchoice\t")) << headless.toStdString();
        const QString fromWindow = dir.filePath(QStringLiteral("window%1.svg").arg(drawn)),
                      fromFigure = dir.filePath(QStringLiteral("figure%1.svg").arg(drawn));
        ++drawn;
        figures::FigureStyle style;
        ASSERT_TRUE(gui::exportPanel(panel, fromWindow, style, &error)) << error.toStdString();
        figures::RenderRequest request;
        request.view = "inference";
        request.out = fromFigure;
        request.style = style;
        request.controls = controls;
        ASSERT_TRUE(figures::renderFigure(study, request, &error)) << error.toStdString();
        const QByteArray a = readAll(fromWindow), b = readAll(fromFigure);
        ASSERT_FALSE(a.isEmpty());
        EXPECT_TRUE(a.contains("xlstm_7b")) << "the measured models are drawn";
        EXPECT_TRUE(a == b) << "the SVGs differ";
    }
}

TEST_F(ViewFigures, EveryViewHasAFigureAndEveryFigureItsViewsId) {
    for (const QString& view : figures::figureViews()) {
        auto figure = figures::makeFigure(view);
        ASSERT_TRUE(figure) << view.toStdString();
        EXPECT_EQ(figure->viewId(), view);
    }
    EXPECT_FALSE(figures::makeFigure("nonsense"));
}

TEST_F(ViewFigures, ControlsTakeKeysTextRoundedValuesAndOldSliderPositions) {
    Controls controls;
    controls.add(figures::choiceControl(
        "panels", {}, {{"one", "One chart"}, {"fig5", "Every context length (Fig. 5)"}, {"range", "budgets 5e18 … 2e20"}},
        QStringLiteral("one")));
    controls.add(figures::valueControl("budget", {}, {1e19, 3.1622776601683794e19, 1e20}, 1e19, 190));
    controls.add(figures::switchControl("curves", {}, true));
    controls.add(figures::integerControl("size", {}, 1, 9, 3));

    EXPECT_TRUE(controls.set(QJsonObject{{"panels", "fig5"}}).isEmpty());
    EXPECT_EQ(controls.choice("panels"), "fig5");
    EXPECT_TRUE(controls.set(QJsonObject{{"panels", "One chart"}}).isEmpty()) << "the text selects the choice too";
    EXPECT_EQ(controls.choice("panels"), "one");
    EXPECT_TRUE(controls.set(QJsonObject{{"panels", "budgets 5e18 ... 2e20"}}).isEmpty()) << "... stands for …";
    EXPECT_EQ(controls.choice("panels"), "range");
    EXPECT_TRUE(controls.set(QJsonObject{{"budget", "3.16e19"}}).isEmpty()) << "a value rounded within 1 %";
    EXPECT_DOUBLE_EQ(controls.number("budget"), 3.1622776601683794e19);
    EXPECT_TRUE(controls.set(QJsonObject{{"budget", 192}}).isEmpty()) << "a slider position kept by older recipes";
    EXPECT_DOUBLE_EQ(controls.number("budget"), 1e20);
    EXPECT_TRUE(controls.set(QJsonObject{{"curves", "off"}, {"size", "7"}}).isEmpty());
    EXPECT_FALSE(controls.on("curves"));
    EXPECT_EQ(controls.number("size"), 7);

    const QStringList notes = controls.set(QJsonObject{{"panels", "two"}, {"size", 10}, {"colour", "red"}});
    ASSERT_EQ(notes.size(), 3);
    EXPECT_EQ(notes[0].toStdString(),
              "the control 'panels' has no value 'two' (one (One chart) | fig5 (Every context length (Fig. 5)) | range (budgets 5e18 … 2e20))");
    EXPECT_EQ(notes[1].toStdString(), "the control 'size' has no value '10' (1 to 9)");
    EXPECT_EQ(notes[2].toStdString(), "the view has no control 'colour' (it has panels, budget, curves, size)");
    EXPECT_EQ(controls.choice("panels"), "range") << "a value not taken changes nothing";
    EXPECT_EQ(controls.describe().toStdString(),
              "panels\tchoice\trange (budgets 5e18 … 2e20)\tone (One chart) | fig5 (Every context length (Fig. 5)) | range (budgets 5e18 … 2e20)\n"
              "budget\tvalue\t1e+20\t1e+19 | 3.16227766e+19 | 1e+20\n"
              "curves\ton/off\toff\ton | off\n"
              "size\tinteger\t7\t1 to 9\n");
}

TEST_F(ViewFigures, ARenamedControlIsReadAsTheNewOne) {
    auto figure = figures::makeFigure("curves");
    ASSERT_TRUE(figure);
    Controls& c = figure->controls();
    Control series;
    series.name = "series";
    series.choices = {{"a", "A"}, {"b", "B"}};
    series.value = "a";
    c.add(series);
    EXPECT_TRUE(c.set(QJsonObject{{"family", "B"}}).isEmpty()) << "recipes saved before 'family' became 'series'";
    EXPECT_EQ(c.choice("series"), "b");
}

TEST_F(ViewFigures, AFigureWithNothingToDrawSaysWhyAndWritesNothing) {
    const analysis::Study study = exampleStudy();  // one row per run: no loss curves
    QTemporaryDir dir;
    figures::RenderRequest request;
    request.view = "curves";
    request.out = dir.filePath("curves.svg");
    QString error;
    EXPECT_FALSE(figures::renderFigure(study, request, &error));
    EXPECT_TRUE(error.startsWith("the view 'curves' has no results for these settings: no loss curves")) << error.toStdString();
    EXPECT_FALSE(QFile::exists(request.out));
}

// One IsoFLOP budget gives a profile but no law: the law panel says so rather than stay empty.
TEST_F(ViewFigures, AnIsoFlopLawPanelWithoutALawSaysSo) {
    QTemporaryDir dir;
    const QString path = dir.filePath("one_budget.csv");
    QFile f(path);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write("model,params,tokens,compute_budget,loss\n");
    for (int k = -3; k <= 3; ++k) {
        const double n = 3e8 * std::pow(10.0, 0.2 * k), d = 3e19 / (6 * n);
        f.write(QStringLiteral("sweep,%1,%2,3e19,%3\n").arg(n, 0, 'g', 12).arg(d, 0, 'g', 12).arg(2.9 + 0.1 * 0.04 * k * k).toUtf8());
    }
    f.close();
    auto runs = data::loadRunTable(path.toStdString(), {});
    ASSERT_TRUE(runs) << runs.error().toString();
    analysis::Study study;
    study.addRuns(std::move(*runs), "one_budget.csv");
    auto figure = figures::makeFigure("isoflop");
    ASSERT_TRUE(figure);
    const figures::FigureInput in{&study};
    figure->refresh(in);
    figure->compute(in);
    figure->draw(in);
    ASSERT_EQ(figure->charts().size(), 2u);
    EXPECT_EQ(figure->charts()[1]->title(), "N*(H): no law from these runs");
    ASSERT_TRUE(figure->setControls(QJsonObject{{"law", "d"}}, in).isEmpty());
    figure->draw(in);
    EXPECT_EQ(figure->charts()[1]->title(), "D*(H): no law from these runs");

    // With the study's runs, the law is drawn under its plain title.
    const analysis::Study example = exampleStudy();
    const figures::FigureInput exampleIn{&example};
    figure->refresh(exampleIn);
    figure->compute(exampleIn);
    figure->draw(exampleIn);
    EXPECT_EQ(figure->charts()[1]->title(), "Compute-optimal D*(H)");
}

TEST_F(ViewFigures, AHeadlessRenderNamesAnUnknownViewOrControlAndWritesNothing) {
    const analysis::Study study = exampleStudy();
    QTemporaryDir dir;
    figures::RenderRequest request;
    request.view = "parteo";
    request.out = dir.filePath("x.svg");
    QString error;
    EXPECT_FALSE(figures::renderFigure(study, request, &error));
    EXPECT_TRUE(error.startsWith("--view: unknown view 'parteo' (expected one of pareto, curves,")) << error.toStdString();
    request.view = "pareto";
    request.controls = {{"panels", "three"}};
    EXPECT_FALSE(figures::renderFigure(study, request, &error));
    EXPECT_TRUE(error.startsWith("the view 'pareto': the control 'panels' has no value 'three' (one (One chart) | fig1 ("))
        << error.toStdString();
    EXPECT_FALSE(QFile::exists(request.out));
}

// ---- the Compute-optimal figure on a study of other labs' runs ----

#include <QtCharts/QAbstractSeries>
#include <array>
#include <atomic>
#include <map>

#include "app/figures/PlotChart.h"
#include "app/figures/views/OptimalFigure.h"
#include "app/gui/FigureView.h"
#include "app/figures/views/OptimalFigure.h"
#include "core/analysis/OptimalInputs.h"
#include "tests/support/LabStudy.h"

namespace {
// The labs' study as a CSV file in `dir`, with lab-c (one budget: no law) or without.
QString writeLabStudy(const QTemporaryDir& dir, bool withOneBudgetSeries = true) {
    const QString path = dir.filePath("labs.csv");
    QFile f(path);
    EXPECT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(QByteArray::fromStdString(test::labStudyCsv(withOneBudgetSeries)));
    return path;
}

analysis::Study labStudy(const QString& path) {
    auto runs = data::loadRunTable(path.toStdString(), {});
    EXPECT_TRUE(runs) << runs.error().toString();
    analysis::Study study;
    if (runs) study.addRuns(std::move(*runs), "labs.csv");
    return study;
}

// N*, D* and the loss of every series of an answer, by name.
std::map<std::string, std::array<double, 3>> optimaOf(const analysis::OptimalAnswer& answer) {
    std::map<std::string, std::array<double, 3>> out;
    for (const auto& a : answer.series)
        if (a.answered()) out[a.name] = {a.optimum.params, a.optimum.tokens, a.optimum.loss};
    return out;
}
}  // namespace

// The compute-optimal figure takes the L(N,D) fits and IsoFLOP laws of the study's series from the
// one result cache (core/analysis/ResultCache.h): the same numbers to the last digit whether the
// loss-surface view fitted the series first or not, and after it the figure fits nothing again.
TEST_F(ViewFigures, TheComputeOptimalFigureGivesTheSameNumbersWhicheverViewFittedFirst) {
    QTemporaryDir dir;
    const analysis::Study study = labStudy(writeLabStudy(dir));
    const figures::FigureInput in{&study};
    // The figure's tables as JSON records, and the fit steps it reported.
    auto optimal = [&](std::size_t* steps) {
        auto figure = figures::makeFigure("optimal");
        EXPECT_TRUE(figure->setControls(QJsonObject{{"method", "surface"}, {"value", "1e21"}}, in).isEmpty());
        std::atomic<std::size_t> reported{0};
        fit::FitControl control;
        control.progress = [&](std::size_t, std::size_t) { ++reported; };
        figure->compute(in, control);
        QByteArray out;
        for (const auto& t : figure->tablesJob(in)(fit::FitControl{})) out += t.id.toUtf8() + ": " + data::toRecordsJson(t.table) + "\n";
        *steps = reported;
        return out;
    };
    analysis::ResultCache::shared().clear();
    std::size_t steps = 0;
    const QByteArray alone = optimal(&steps);
    EXPECT_GT(steps, 0u) << "fitted the series' surfaces";
    EXPECT_TRUE(alone.contains("\"query\"") || alone.contains("query: ")) << alone.toStdString();

    analysis::ResultCache::shared().clear();
    auto surface = figures::makeFigure("surface");
    for (const std::string& series : study.seriesNames()) {
        const QStringList notes = surface->setControls(QJsonObject{{"series", QString::fromStdString(series)}}, in);
        if (!notes.isEmpty()) continue;  // a series the loss-surface view does not fit
        surface->compute(in);
    }
    EXPECT_EQ(optimal(&steps), alone);
    EXPECT_EQ(steps, 0u) << "the surfaces the loss-surface view fitted are reused";
}

// The figure answers for the study's series with the analysis' numbers (what `scalex predict
// optimal` prints); the paper's models only when switched on.
TEST_F(ViewFigures, TheComputeOptimalFigureAnswersForTheStudysSeries) {
    QTemporaryDir dir;
    const analysis::Study study = labStudy(writeLabStudy(dir));
    auto figure = figures::makeFigure("optimal");
    ASSERT_TRUE(figure);
    auto* optimal = static_cast<figures::OptimalFigure*>(figure.get());
    const figures::FigureInput in{&study};
    ASSERT_TRUE(figure->setControls(QJsonObject{{"method", "laws"}, {"value", "1e21"}}, in).isEmpty());
    EXPECT_FALSE(figure->controls().on("reference")) << "off by default for a study that is not the paper's";
    EXPECT_FALSE(figure->controls().at("context").enabled) << "the context length is the paper's models'";
    figure->compute(in);
    figure->draw(in);
    const analysis::OptimalAnswer& answer = optimal->answer();
    ASSERT_TRUE(answer.problem.empty()) << answer.problem;
    ASSERT_EQ(answer.series.size(), 3u);
    EXPECT_FALSE(answer.pending()) << "a headless figure fits the surfaces before it draws";

    analysis::OptimalQuery query;
    query.value = 1e21;
    query.useLaws = true;
    const analysis::OptimalAnswer direct = analysis::answerOptimalQuery(study.runs(), study.settings(), study.paper(), query);
    EXPECT_EQ(optimaOf(answer), optimaOf(direct));
    for (std::size_t k = 0; k < 2; ++k) {
        const auto& a = answer.series[k];
        EXPECT_EQ(a.name, test::kLabSeries[k].name);
        ASSERT_TRUE(a.intervals);
        EXPECT_LT(a.intervals->exponentN.lower, test::kLabSeries[k].exponent);
        EXPECT_GT(a.intervals->exponentN.upper, test::kLabSeries[k].exponent);
        EXPECT_DOUBLE_EQ(a.intervals->params.lower, direct.series[k].intervals->params.lower);
    }
    // The series without a law says so, in the notes and in the chart's legend.
    EXPECT_TRUE(optimal->seriesNote().contains("lab-c: no IsoFLOP law")) << optimal->seriesNote().toStdString();
    QStringList legend;
    for (QAbstractSeries* s : optimal->budgetChart()->series()) legend << s->name();
    EXPECT_TRUE(legend.contains("lab-c: no IsoFLOP law")) << legend.join(" | ").toStdString();
    EXPECT_FALSE(legend.join(" ").contains("Transformer"));
    // Its tables: the query's optima with their intervals, and the reason in lab-c's row.
    const auto tables = figure->tablesJob(in)(fit::FitControl{});
    ASSERT_EQ(tables.size(), 3u);
    const data::ExportTable& q = tables[1].table;
    ASSERT_EQ(q.rows.size(), 3u);
    EXPECT_EQ(std::get<std::string>(q.rows[0][0]), "lab-a");
    EXPECT_DOUBLE_EQ(std::get<double>(q.rows[0][1]), direct.series[0].optimum.params);
    EXPECT_EQ(std::get<std::string>(q.rows[2].back()), direct.series[2].problem);

    // The paper's models as a reference (answered in OptimalStudy and OptimalVerb tests): the
    // switch brings the context length at which they count FLOPs.
    ASSERT_TRUE(figure->setControls(QJsonObject{{"reference", true}}, in).isEmpty());
    EXPECT_TRUE(figure->controls().at("context").enabled);

    // The paper's study: on by default, its two families answered by the paper's models.
    const analysis::Study example = exampleStudy();
    auto paperFigure = figures::makeFigure("optimal");
    const figures::FigureInput exampleIn{&example};
    paperFigure->refresh(exampleIn);
    EXPECT_TRUE(paperFigure->controls().on("reference"));
    paperFigure->compute(exampleIn);
    const auto& paperAnswer = static_cast<figures::OptimalFigure*>(paperFigure.get())->answer();
    ASSERT_EQ(paperAnswer.series.size(), 2u);
    EXPECT_EQ(paperAnswer.series[0].name, "Transformer");
    EXPECT_EQ(paperAnswer.series[1].name, "xLSTM");
}

// The Compute-optimal view's answer is the study's and the settings' alone: it is the same
// whether or not the loss-surface view fitted a surface first, on another study and on the paper's.
TEST_F(ViewFigures, TheComputeOptimalAnswerDoesNotDependOnTheLossSurfaceView) {
    QTemporaryDir dir;
    const QString path = writeLabStudy(dir, false);
    for (const QString& project : {path, QString()}) {
        SCOPED_TRACE(project.isEmpty() ? "the built-in example" : "the labs' study");
        QString error;
        // One window opens the Compute-optimal view first, the other after the loss surface's fit.
        auto first = gui::openHeadless(project, false, &error);
        ASSERT_TRUE(first) << error.toStdString();
        ASSERT_TRUE(first->showView("optimal"));
        first->currentPanel()->computeNow();
        const auto before = optimaOf(static_cast<gui::FigureView*>(first->currentPanel())->figureAs<figures::OptimalFigure>()->answer());
        ASSERT_GE(before.size(), 2u);
        // The paper's models, and the context length at which they count FLOPs, on the paper's study alone.
        auto* reference = first->currentPanel()->findChild<QWidget*>("reference");
        auto* context = first->currentPanel()->findChild<QWidget*>("context");
        ASSERT_TRUE(reference && context);
        EXPECT_EQ(context->isEnabled(), project.isEmpty());

        auto second = gui::openHeadless(project, false, &error);
        ASSERT_TRUE(second) << error.toStdString();
        ASSERT_TRUE(second->showView("surface"));
        ASSERT_TRUE(gui::restoreControls(second->currentPanel(), QJsonObject{{"grid", "quick"}}).isEmpty());
        second->currentPanel()->computeNow();
        ASSERT_TRUE(second->currentPanel()->problem().isEmpty()) << second->currentPanel()->problem().toStdString();
        ASSERT_TRUE(second->showView("optimal"));
        second->currentPanel()->computeNow();
        EXPECT_EQ(optimaOf(static_cast<gui::FigureView*>(second->currentPanel())->figureAs<figures::OptimalFigure>()->answer()), before);

        // And the first window's, after its own loss-surface view has fitted.
        ASSERT_TRUE(first->showView("surface"));
        ASSERT_TRUE(gui::restoreControls(first->currentPanel(), QJsonObject{{"grid", "quick"}, {"delta", "0.01"}}).isEmpty());
        first->currentPanel()->computeNow();
        ASSERT_TRUE(first->showView("optimal"));
        first->currentPanel()->computeNow();
        EXPECT_EQ(optimaOf(static_cast<gui::FigureView*>(first->currentPanel())->figureAs<figures::OptimalFigure>()->answer()), before);
        // Another budget and back: the fits made for the first query answer again.
        for (const char* value : {"3e21", "1e22"}) {
            ASSERT_TRUE(gui::restoreControls(first->currentPanel(), QJsonObject{{"value", value}}).isEmpty());
            first->currentPanel()->computeNow();
        }
        EXPECT_EQ(optimaOf(static_cast<gui::FigureView*>(first->currentPanel())->figureAs<figures::OptimalFigure>()->answer()), before);
    }
}

// A planned run's read-out (the hover text of its point, figures::runSummary): what `plan --out`
// wrote beside it, its cost and the target's half-width after it, instead of a loss it has not got;
// a run with a loss reads as before.
TEST_F(ViewFigures, APlannedRunsReadoutGivesItsCostAndIntervalAfter) {
    const QByteArray csv = "name,params,tokens,cost,halfwidth_after,loss\n"
                           "trained,1e8,2e9,1.2e18,,3.1\n"
                           "planned 1,1.857e9,1e9,1.114e19,0.006818,\n"
                           "planned 2,3e9,6e10,,,\n";
    auto runs = data::parseRunTable(csv, "picks.csv", [] {
        data::LoadOptions o;
        o.lossRequired = false;
        return o;
    }());
    ASSERT_TRUE(runs) << runs.error().toString();
    analysis::Study study;
    study.addRuns(std::move(*runs), "picks.csv");
    const QString trained = figures::runSummary(study, 0), planned = figures::runSummary(study, 1), bare = figures::runSummary(study, 2);
    EXPECT_TRUE(trained.contains("loss 3.1000")) << trained.toStdString();
    EXPECT_FALSE(trained.contains("planned")) << trained.toStdString();
    EXPECT_TRUE(planned.contains("planned (no loss yet)")) << planned.toStdString();
    EXPECT_TRUE(planned.contains("<br>cost 1.11e19 · target ± 0.00682 (95 %) after it")) << planned.toStdString();
    EXPECT_FALSE(planned.contains("nan")) << planned.toStdString();
    EXPECT_TRUE(bare.contains("planned (no loss yet)")) << bare.toStdString();
    EXPECT_FALSE(bare.contains("cost")) << bare.toStdString();
}
