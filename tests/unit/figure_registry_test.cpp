// A figure added to the registry (app/figures/views/Figures.h) is a tab of the window with no other
// code: the one view class shows it with the registry's title and Explain text, its controls and
// its table, and redraws them when a control changes. No view of the window has a class of its own
// but the run table.
#include <gtest/gtest.h>

#include <QApplication>
#include <QSpinBox>
#include <QTableWidget>
#include <QTextBrowser>
#include <QTextDocument>
#include <QtCharts/QChart>
#include <QtCharts/QLineSeries>
#include <memory>

#include "app/figures/PlotChart.h"
#include "app/figures/ViewFigure.h"
#include "app/figures/views/Figures.h"
#include "app/gui/FigureView.h"
#include "app/gui/MainWindow.h"
#include "app/gui/RunsView.h"
#include "tests/support/GuiApp.h"

using namespace scalex;

namespace {

// A figure only this test knows: a control "count", a line through (k, k²) for k up to it, and a
// table of the same points.
class SquaresFigure : public figures::ViewFigure {
public:
    SquaresFigure() : chart_(makeChart()) {
        controls().add(figures::integerControl("count", "Points", 1, 9, 3, "How many squares to draw"));
    }
    QString viewId() const override { return "squares"; }
    void draw(const figures::FigureInput&) override {
        std::vector<QPointF> points;
        for (int k = 1; k <= count(); ++k) points.push_back({double(k), double(k * k)});
        chart_->clearSeries();
        chart_->setAxes({"k", false, 0, 10}, {"k²", false, 0, 100});
        chart_->addLine("squares", Qt::darkBlue, points);
    }
    std::vector<QChart*> charts() const override { return {chart_}; }
    QStringList shownHeaders() const override { return {"k", "square"}; }
    std::vector<QStringList> shownRows() const override {
        std::vector<QStringList> rows;
        for (int k = 1; k <= count(); ++k) rows.push_back({QString::number(k), QString::number(k * k)});
        return rows;
    }

private:
    int count() const { return static_cast<int>(controls().number("count")); }
    figures::PlotChart* chart_;
};

QString squaresExplain(const figures::ViewFigure& figure, const figures::FigureInput&) {
    return QStringLiteral("<h3>Squares</h3><p>%1 squares drawn.</p>").arg(figure.controls().number("count"));
}

class FigureRegistry : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        test::ensureGuiApplication("scalex_figure_registry_test");
        // Before any window is made, as the registry asks.
        figures::registerFigure({"squares", "Squares", [] { return std::make_unique<SquaresFigure>(); }, {}, squaresExplain, {}});
    }
    void SetUp() override {
        window = std::make_unique<gui::MainWindow>();
        window->resize(1280, 800);
        window->setAttribute(Qt::WA_DontShowOnScreen, true);
        window->show();
        ASSERT_TRUE(window->openExample(false)) << window->lastError().toStdString();
    }
    gui::FigureView* squares() {
        for (gui::ViewPanel* p : window->panels())
            if (p->viewId() == "squares") return qobject_cast<gui::FigureView*>(p);
        return nullptr;
    }
    std::unique_ptr<gui::MainWindow> window;
};

TEST_F(FigureRegistry, ARegisteredFigureIsATabOfTheOneViewClassWithItsTitleExplainControlsAndTable) {
    const auto& registry = figures::figureRegistry();
    ASSERT_EQ(registry.back().id, "squares");
    ASSERT_EQ(window->panels().size(), registry.size()) << "a tab per entry";
    EXPECT_EQ(window->views()->tabText(static_cast<int>(registry.size()) - 1), "Squares");
    gui::FigureView* view = squares();
    ASSERT_NE(view, nullptr) << "drawn by FigureView";
    EXPECT_EQ(view->title(), "Squares");
    ASSERT_TRUE(window->showView("squares"));
    QApplication::processEvents();

    // Its Explain text, in the pane.
    EXPECT_EQ(view->explainHtml(), "<h3>Squares</h3><p>3 squares drawn.</p>");
    QTextDocument text;
    text.setHtml(view->explainHtml());
    EXPECT_EQ(window->explainPane()->toPlainText(), text.toPlainText());

    // Its control and its table, kept in step: the line and the rows follow the control.
    auto* count = view->findChild<QSpinBox*>("count");
    ASSERT_NE(count, nullptr);
    auto* table = view->findChild<QTableWidget*>("shownTable");
    ASSERT_NE(table, nullptr);
    EXPECT_TRUE(table->isVisibleTo(view));
    ASSERT_EQ(table->rowCount(), 3);
    EXPECT_EQ(table->horizontalHeaderItem(1)->text(), "square");
    EXPECT_EQ(table->item(2, 1)->text(), "9");
    count->setValue(5);
    QApplication::processEvents();
    ASSERT_EQ(table->rowCount(), 5);
    EXPECT_EQ(table->item(4, 1)->text(), "25");
    ASSERT_EQ(view->charts().size(), 1u);
    auto* line = qobject_cast<QLineSeries*>(view->charts().front()->series().value(0));
    ASSERT_NE(line, nullptr);
    EXPECT_EQ(line->count(), 5);
    EXPECT_TRUE(window->explainPane()->toPlainText().contains("5 squares drawn")) << "the Explain pane follows the figure";

    // A view of `--view`: listed with the others.
    EXPECT_TRUE(figures::figureViews().contains("squares"));
}

TEST_F(FigureRegistry, EveryViewButTheRunTableIsAFigureView) {
    // One view class for every figure: no view has a class of its own.
    for (gui::ViewPanel* panel : window->panels()) {
        SCOPED_TRACE(panel->viewId().toStdString());
        if (panel->viewId() == "runs") EXPECT_NE(qobject_cast<gui::RunsView*>(panel), nullptr);
        else EXPECT_NE(qobject_cast<gui::FigureView*>(panel), nullptr);
    }
}

}  // namespace
