// Tick labels of log axes never run into each other, at any chart width: a budget axis over
// [8e16, 6.5e17] (the IsoFLOP view's compute-optimal chart) keeps its decade and writes its labels
// as the figures' legends do (10¹⁷, 2×10¹⁷), also after a redraw at an unchanged size.
#include <gtest/gtest.h>

#include <QEventLoop>
#include <algorithm>
#include <cmath>
#include <QTimer>
#include <QtCharts/QCategoryAxis>

#include "app/figures/PlotChart.h"
#include "app/figures/TickLayout.h"
#include "app/gui/PlotView.h"
#include "tests/support/AxisLabels.h"
#include "tests/support/GuiApp.h"

using scalex::figures::AxisSpec;
using scalex::figures::PlacedLabel;
using scalex::figures::PlotChart;
using scalex::gui::PlotView;

namespace {

using ShownLabel = scalex::test::ShownAxisLabel;

// The x axis tick labels the chart draws, left to right.
std::vector<ShownLabel> shownXLabels(QChart* chart) {
    auto out = scalex::test::shownAxisLabels(chart, qobject_cast<QCategoryAxis*>(chart->axes(Qt::Horizontal).value(0)));
    std::sort(out.begin(), out.end(), [](const ShownLabel& a, const ShownLabel& b) { return a.rect.left() < b.rect.left(); });
    return out;
}

// Lets the view lay out, retick and thin (queued work), as the main loop would.
void settle() {
    for (int round = 0; round < 5; ++round) {
        QEventLoop loop;
        QTimer::singleShot(20, &loop, &QEventLoop::quit);
        loop.exec();
        QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);  // replaced axes' items
    }
}

// Why the labels are wrong, or empty: two rectangles that intersect, or a decade left out.
QString problems(const std::vector<ShownLabel>& shown, const QStringList& decades) {
    QStringList found;
    for (std::size_t i = 1; i < shown.size(); ++i)
        if (shown[i - 1].rect.intersects(shown[i].rect)) found << QStringLiteral("'%1' and '%2' overlap").arg(shown[i - 1].text, shown[i].text);
    for (const QString& d : decades)
        if (std::none_of(shown.begin(), shown.end(), [&](const ShownLabel& l) { return l.text == d; })) found << QStringLiteral("no '%1'").arg(d);
    for (const ShownLabel& l : shown)
        if (l.text.contains('e')) found << QStringLiteral("'%1' in C notation").arg(l.text);
    return found.join("; ");
}

QStringList texts(const std::vector<ShownLabel>& shown) {
    QStringList out;
    for (const ShownLabel& l : shown) out << l.text;
    return out;
}

class TickLabels : public ::testing::Test {
protected:
    void SetUp() override { scalex::test::ensureGuiApplication("scalex_tick_labels_test"); }
};

}  // namespace

TEST_F(TickLabels, ABudgetAxisOfLessThanADecadeKeepsItsDecadeAndNoLabelsOverlapAtAnyWidth) {
    for (int width : {300, 500, 900}) {
        auto* chart = new PlotChart();
        PlotView view(chart);
        view.setAttribute(Qt::WA_DontShowOnScreen, true);
        view.resize(width, 360);
        chart->setAxes({"Budget H (FLOPs)", true, 8e16, 6.5e17}, {"N* (params)", true, 2.4e7, 6.3e7, true});
        chart->addLine("law", Qt::blue, {{8e16, 2.4e7}, {6.5e17, 6.3e7}});
        view.show();
        settle();
        std::vector<ShownLabel> shown = shownXLabels(chart);
        const QString where = QStringLiteral("%1 px: %2").arg(width).arg(texts(shown).join(", "));
        EXPECT_GE(shown.size(), 2u) << where.toStdString();
        EXPECT_EQ(problems(shown, {QStringLiteral("10¹⁷")}), QString()) << where.toStdString();
        // A view redrawn (new axes, the same size: no change of plot area) is thinned too.
        chart->setAxes(chart->xSpec(), chart->ySpec());
        settle();
        shown = shownXLabels(chart);
        EXPECT_EQ(problems(shown, {QStringLiteral("10¹⁷")}), QString()) << width << " px, redrawn: " << texts(shown).join(", ").toStdString();
        // A wide chart has room for the 2s and 5s too, written as the legends write budgets.
        if (width == 900) {
            EXPECT_TRUE(texts(shown).contains(QStringLiteral("2×10¹⁷"))) << where.toStdString();
            EXPECT_TRUE(texts(shown).contains(QStringLiteral("5×10¹⁷"))) << where.toStdString();
        }
    }
}

TEST_F(TickLabels, AWideBudgetAxisKeepsEveryDecadeWhereTheyFit) {
    for (int width : {300, 500, 900}) {
        auto* chart = new PlotChart();
        PlotView view(chart);
        view.setAttribute(Qt::WA_DontShowOnScreen, true);
        view.resize(width, 360);
        chart->setAxes({"Budget H (FLOPs)", true, 1e18, 1e22}, {"N* (params)", true, 1e7, 1e11, true});
        view.show();
        settle();
        const auto shown = shownXLabels(chart);
        EXPECT_EQ(problems(shown, {"10¹⁸", "10¹⁹", "10²⁰", "10²¹", "10²²"}), QString()) << width << " px: " << texts(shown).join(", ").toStdString();
    }
}

// Crowded decades are kept at an even stride from the first, not wherever they happen to fit;
// 2s and 5s come in only once every decade is in.
TEST(KeptTickLabels, CrowdedDecadesAtAnEvenStrideThenTwosAndFives) {
    std::vector<PlacedLabel> decades;
    for (int e = 0; e < 7; ++e) decades.push_back({static_cast<double>(e), 20.0 + 30.0 * e, 40.0});
    EXPECT_EQ(scalex::figures::keptTickLabels(decades, true, 4, 400), (std::vector<int>{0, 2, 4, 6}));
    // 1, 2, 3, 5, 10 where a wide "1" leaves no room for 2, and 3 and 5 cannot both be in: the 5
    // is kept (taken left to right, 3 would be, and 5 dropped).
    std::vector<PlacedLabel> mixed;
    for (double v : {1.0, 2.0, 3.0, 5.0, 10.0}) mixed.push_back({std::log10(v), 120 + 400 * std::log10(v), v == 1.0 ? 220.0 : 100.0});
    EXPECT_EQ(scalex::figures::keptTickLabels(mixed, true, 0, 640), (std::vector<int>{0, 3, 4}));
    // A label reaching past the chart's edge is dropped (10 at 520 ± 50 in 560 pixels).
    EXPECT_EQ(scalex::figures::keptTickLabels(mixed, true, 0, 560), (std::vector<int>{0, 3}));
    // A linear axis thins at an even stride.
    EXPECT_EQ(scalex::figures::keptTickLabels(decades, false, 4, 400), (std::vector<int>{0, 2, 4, 6}));
}
