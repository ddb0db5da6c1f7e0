// The Schedules view in the window: pressing on its chart moves the schedule editor's cooldown start
// to the step under the mouse, dragging moves it on, and the Best cooldown button sets the editor to
// the optimum (app/gui/PlotView's drag, app/figures/views/ScheduleFigure).
#include <gtest/gtest.h>

#include <QApplication>
#include <QMouseEvent>
#include <QPushButton>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <cmath>
#include <memory>

#include "app/figures/views/ScheduleFigure.h"
#include "app/gui/FigureView.h"
#include "app/gui/MainWindow.h"
#include "app/gui/PlotView.h"
#include "tests/support/GuiApp.h"
#include "tests/support/TestData.h"

using namespace scalex;
using scalex::test::sharedPath;

namespace {

QString lrFile(const QString& prefix, const QString& rest) {
    return sharedPath("data/public/lr-schedules/" + prefix + "_slimpajama_llama_norm_nlayers12_nhead12_lr0.001_sched_" + rest +
                      "_bs50x2_ws2_seed0_data_seed1337.json");
}

// The viewport position of the data point (step, loss) in `view`'s chart.
QPoint at(QChartView* view, double step, double loss) {
    QChart* chart = view->chart();
    const QPointF inChart = chart->mapToPosition(QPointF(step, loss), chart->series().front());
    return view->mapFromScene(chart->mapToScene(inChart));
}

void mouse(QWidget* viewport, QEvent::Type type, const QPoint& position) {
    QMouseEvent event(type, QPointF(position), viewport->mapToGlobal(QPointF(position)), Qt::LeftButton,
                      type == QEvent::MouseButtonRelease ? Qt::NoButton : Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(viewport, &event);
}

}  // namespace

TEST(ScheduleDrag, PressingAndDraggingOnTheChartMovesTheCooldownStart) {
    SCALEX_REQUIRE_SHARED();
    test::ensureGuiApplication("scalex_schedule_drag_test");
    auto window = std::make_unique<gui::MainWindow>();
    window->resize(1280, 800);
    window->setAttribute(Qt::WA_DontShowOnScreen, true);
    window->show();
    ASSERT_TRUE(window->openLossCurves(lrFile("stable-124m", "wsd_warmup300_decay_linear_0.0_iter50000"), false)) << window->lastError().toStdString();
    ASSERT_TRUE(window->openLossCurves(lrFile("cos-10-124m", "cos_warmup300_decay_sqrt_0.0_iter25000"), false)) << window->lastError().toStdString();
    ASSERT_TRUE(window->showView("schedules"));
    gui::FigureView* view = nullptr;
    for (auto* p : window->panels())
        if (p->viewId() == "schedules") view = qobject_cast<gui::FigureView*>(p);
    ASSERT_NE(view, nullptr);
    view->computeNow();
    QApplication::processEvents();
    auto* figure = view->figureAs<figures::ScheduleFigure>();
    ASSERT_TRUE(figure->problem().isEmpty()) << figure->problem().toStdString();
    ASSERT_EQ(figure->schedule().steps, 50000);
    EXPECT_DOUBLE_EQ(figure->schedule().cooldownFraction, 0.2);  // the editor's default
    auto* plot = view->findChild<gui::PlotView*>();
    ASSERT_NE(plot, nullptr);
    ASSERT_TRUE(plot->isVisible());
    const double loss = figure->finalLoss().loss + 0.05;

    // A press at step 30,000: the cooldown starts there, the last 40 % of the 50,000 steps.
    const auto before = figure->finalLoss();
    mouse(plot->viewport(), QEvent::MouseButtonPress, at(plot, 30000, loss));
    QApplication::processEvents();
    EXPECT_NEAR(figure->schedule().cooldownFraction, 0.4, 0.0101);
    EXPECT_NE(figure->finalLoss().loss, before.loss) << "the prediction moved with the editor";
    EXPECT_EQ(view->figure()->controls().number("cooldown"), figure->schedule().cooldownFraction) << "the slider shows it";
    // Dragged on to step 45,000 with the button held: 10 %; released, it stays.
    mouse(plot->viewport(), QEvent::MouseMove, at(plot, 45000, loss));
    mouse(plot->viewport(), QEvent::MouseButtonRelease, at(plot, 45000, loss));
    QApplication::processEvents();
    EXPECT_NEAR(figure->schedule().cooldownFraction, 0.1, 0.0101);
    // A move without the button does nothing.
    QMouseEvent hover(QEvent::MouseMove, QPointF(at(plot, 20000, loss)), plot->viewport()->mapToGlobal(QPointF(at(plot, 20000, loss))), Qt::NoButton,
                      Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(plot->viewport(), &hover);
    QApplication::processEvents();
    EXPECT_NEAR(figure->schedule().cooldownFraction, 0.1, 0.0101);

    // The Best cooldown button: its job, then the editor at the optimum.
    auto* best = view->findChild<QPushButton*>("bestCooldown");
    ASSERT_NE(best, nullptr);
    best->click();
    view->computeNow();
    QApplication::processEvents();
    ASSERT_TRUE(figure->bestCooldown());
    EXPECT_NEAR(figure->schedule().cooldownFraction, figure->bestCooldown()->best.schedule.cooldownFraction, 0.0051);
    EXPECT_EQ(figure->schedule().decay, figure->bestCooldown()->best.schedule.decay);
}
