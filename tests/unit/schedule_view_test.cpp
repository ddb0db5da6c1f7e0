// The Schedules view (app/figures/views/ScheduleFigure): the law fitted to a study's tracker
// curves once, the schedule editor's controls (shape, cooldown fraction, decay, length) moving the
// predicted curve and final loss without a new fit, each prediction the analysis' own (the same as
// `scalex predict curve` for that schedule) with its interval, and a study without rates named.
#include <gtest/gtest.h>

#include <QFileInfo>
#include <QJsonObject>
#include <cmath>

#include "app/figures/views/ScheduleFigure.h"
#include "core/analysis/CurveFits.h"
#include "core/analysis/Study.h"
#include "core/data/Project.h"
#include "tests/support/GuiApp.h"
#include "tests/support/TestData.h"

using namespace scalex;
using scalex::test::sharedPath;

namespace {

QString lrFile(const QString& prefix, const QString& lr, const QString& rest) {
    return sharedPath("data/public/lr-schedules/" + prefix + "_slimpajama_llama_norm_nlayers12_nhead12_lr" + lr + "_sched_" + rest +
                      "_bs50x2_ws2_seed0_data_seed1337.json");
}

// The constant-rate run and the 25,000-step cosine run of peak rate 1e-3.
QStringList constantAndCosine() {
    return {lrFile("stable-124m", "0.001", "wsd_warmup300_decay_linear_0.0_iter50000"),
            lrFile("cos-10-124m", "0.001", "cos_warmup300_decay_sqrt_0.0_iter25000")};
}

void addCurves(analysis::Study& study, const QStringList& files) {
    for (const auto& f : files) {
        auto set = data::loadProjectCurves(f, QFileInfo(f).completeBaseName().toStdString());
        ASSERT_TRUE(set.ok()) << set.error().toString();
        study.addCurves(std::move(*set));
    }
}

class ScheduleView : public ::testing::Test {
protected:
    void SetUp() override { test::ensureGuiApplication("scalex_schedule_view_test"); }
};

}  // namespace

TEST_F(ScheduleView, EditorMovesThePredictionWithoutRefitting) {
    SCALEX_REQUIRE_SHARED();
    analysis::Study study;
    const QStringList files = constantAndCosine();
    addCurves(study, files);
    const figures::FigureInput in{&study};
    figures::ScheduleFigure figure;
    figure.compute(in);
    figure.draw(in);
    ASSERT_TRUE(figure.problem().isEmpty()) << figure.problem().toStdString();
    // The default schedule: WSD, 20 % linear cooldown, as long as the longest curve (50,000 steps),
    // at its peak rate and after its 300-step warm-up.
    EXPECT_EQ(figure.schedule().shape, fit::ScheduleShape::Wsd);
    EXPECT_EQ(figure.schedule().steps, 50000);
    EXPECT_EQ(figure.schedule().warmupSteps, 300);
    EXPECT_DOUBLE_EQ(figure.schedule().peakLr, 1e-3);
    const auto at20 = figure.finalLoss();
    EXPECT_LT(at20.lower, at20.loss);
    EXPECT_GT(at20.upper, at20.loss);
    EXPECT_TRUE(figure.summary().contains(QString::number(at20.loss, 'f', 4))) << figure.summary().toStdString();

    // Moving the cooldown redraws from the same fit: no job control changes.
    const QJsonObject jobBefore = figure.jobControls();
    ASSERT_TRUE(figure.setControls(QJsonObject{{"cooldown", 0.5}, {"decay", "sqrt"}, {"length", 2}}, in).isEmpty());
    EXPECT_EQ(figure.jobControls(), jobBefore);
    figure.draw(in);
    EXPECT_EQ(figure.schedule().steps, 100000);
    EXPECT_DOUBLE_EQ(figure.schedule().cooldownFraction, 0.5);
    EXPECT_EQ(figure.schedule().decay, fit::DecayShape::Sqrt);
    const auto at50 = figure.finalLoss();
    EXPECT_LT(at50.loss, at20.loss) << "twice as long a run ends lower";

    // The view's prediction is the analysis' for that schedule, fitted to the same curves.
    analysis::CurvePredictOptions o;
    for (const auto& f : files) o.fit.dataFiles.push_back(f.toStdString());
    o.fit.warmupSteps = 300;
    o.schedule = analysis::scheduleLabel(figure.schedule());
    const auto cli = analysis::predictCurve(o);
    ASSERT_TRUE(cli.ok()) << cli.error().toString();
    EXPECT_NEAR(cli->points.back().loss.loss, at50.loss, 2e-3 * at50.loss);
}

TEST_F(ScheduleView, StudyWithoutLoggedRatesIsNamed) {
    analysis::Study study;
    const figures::FigureInput in{&study};
    figures::ScheduleFigure figure;
    figure.compute(in);
    figure.draw(in);
    EXPECT_TRUE(figure.problem().contains("learning rate")) << figure.problem().toStdString();
}

TEST_F(ScheduleView, BestCooldownButtonSetsTheEditorToTheOptimum) {
    SCALEX_REQUIRE_SHARED();
    analysis::Study study;
    addCurves(study, constantAndCosine());
    const figures::FigureInput in{&study};
    figures::ScheduleFigure figure;
    figure.compute(in);
    figure.draw(in);
    ASSERT_TRUE(figure.problem().isEmpty()) << figure.problem().toStdString();
    const auto actions = figure.actions();
    ASSERT_EQ(actions.size(), 1u);
    EXPECT_EQ(actions.front().name, "bestCooldown");
    const auto atDefault = figure.finalLoss();  // 20 % linear cooldown
    EXPECT_FALSE(figure.bestCooldown());
    // The button's job, then its answer taken on the window's thread, then the drawing.
    auto job = figure.actionJob("bestCooldown");
    ASSERT_TRUE(job);
    job(fit::FitControl{})();
    figure.draw(in);
    ASSERT_TRUE(figure.bestCooldown());
    const auto& best = figure.bestCooldown()->best;
    EXPECT_EQ(best.schedule.steps, 50000);
    EXPECT_EQ(best.schedule.finalLr, 0) << "the editor's schedules end at rate 0";
    // The editor shows the optimum to its slider's 0.01, and predicts (about) its loss.
    EXPECT_EQ(figure.schedule().shape, fit::ScheduleShape::Wsd);
    EXPECT_EQ(figure.schedule().decay, best.schedule.decay);
    EXPECT_NEAR(figure.schedule().cooldownFraction, best.schedule.cooldownFraction, 0.005 + 1e-9);
    EXPECT_NEAR(figure.finalLoss().loss, best.final.loss, 2e-4 * best.final.loss);
    EXPECT_LE(best.final.loss, atDefault.loss);
    EXPECT_TRUE(figure.summary().contains("Best cooldown for 50000 steps")) << figure.summary().toStdString();
}
