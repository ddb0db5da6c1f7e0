// Predicted checkpoints in the window's L(N,D) and IsoFLOP views (app/figures/CheckpointMarks.h):
// a study opened from tracker exports as the window opens them (one run each, and each a loss
// curve) offers, by default, each model's end-of-cooldown losses its curves' law predicts; the
// view's figure holds the same points, losses and intervals as `scalex fit lnd --from-curves` and
// `scalex fit isoflop --from-curves` print for the same files at the same token counts or budgets,
// and draws them hollow under the legend entry "predicted from curves".
#include <gtest/gtest.h>

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtCharts/QLineSeries>
#include <QtCharts/QScatterSeries>
#include <QFile>
#include <cmath>
#include <set>
#include <tuple>

#include "app/figures/PlotChart.h"
#include "app/figures/views/IsoFlopFigure.h"
#include "app/figures/views/LossSurfaceFigure.h"
#include "core/analysis/Study.h"
#include "core/data/Project.h"
#include "core/data/RunTableIo.h"
#include "core/data/TrackerJson.h"
#include "tests/support/GuiApp.h"
#include "tests/cli/ScalexProcess.h"
#include "tests/support/MplTrackerRuns.h"

using namespace scalex;

namespace {

class CheckpointViews : public ::testing::Test {
protected:
    void SetUp() override {
        test::ensureGuiApplication("scalex_checkpoint_views_test");
        ASSERT_TRUE(tmp_.isValid());
        models_ = test::writeMplModels(QDir(tmp_.path()));
        // As the window opens several tracker exports: one run table of them, then each as a curve set.
        std::vector<data::TrackerRun> runs;
        for (const auto& files : models_)
            for (const auto& f : files) {
                auto run = data::loadTrackerRun(f.toStdString());
                ASSERT_TRUE(run.ok()) << run.error().toString();
                runs.push_back(std::move(*run));
            }
        auto table = data::parseRunTable(data::trackerRunsCsv(runs), "tracker_runs");
        ASSERT_TRUE(table.ok()) << table.error().toString();
        study_.addRuns(std::move(*table), "tracker_runs");
        for (const auto& files : models_)
            for (const auto& f : files) {
                auto set = data::loadProjectCurves(f, QFileInfo(f).completeBaseName().toStdString());
                ASSERT_TRUE(set.ok()) << set.error().toString();
                study_.addCurves(std::move(*set));
            }
    }

    // `scalex fit <verb> --from-curves ...` with `extra`, its --json (with `replicates` bootstrap replicates).
    QJsonObject verb(const QString& name, const QStringList& extra, const QString& replicates = "0") const {
        QStringList args{"fit", name};
        for (const auto& files : models_) args << "--from-curves" << files.join(',');
        args << extra << "--replicates" << replicates << "--json";
        const auto r = test::runScalex(args);
        EXPECT_EQ(r.exitCode, 0) << r.err.toStdString();
        return r.json();
    }

    // The figure's checkpoints equal the verb's, in order.
    static void expectSameCheckpoints(const analysis::PredictedCheckpointsResult& shown, const QJsonObject& json) {
        const QJsonArray printed = json["checkpoints"].toObject()["checkpoints"].toArray();
        ASSERT_EQ(printed.size(), static_cast<qsizetype>(shown.checkpoints.size()));
        for (std::size_t i = 0; i < shown.checkpoints.size(); ++i) {
            const auto& c = shown.checkpoints[i];
            const QJsonObject p = printed[static_cast<qsizetype>(i)].toObject();
            EXPECT_EQ(p["model"].toString().toStdString(), c.model);
            EXPECT_DOUBLE_EQ(p["params"].toDouble(), c.params);
            EXPECT_DOUBLE_EQ(p["tokens"].toDouble(), c.tokens);
            EXPECT_NEAR(p["loss"].toDouble(), c.loss, 1e-9 * c.loss) << c.model << " at D = " << c.tokens;
            EXPECT_NEAR(p["lower"].toDouble(), c.lower, 1e-9 * c.loss);
            EXPECT_NEAR(p["upper"].toDouble(), c.upper, 1e-9 * c.loss);
            EXPECT_NEAR(p["ln_sd"].toDouble(), c.lnSd, 1e-9);
            EXPECT_EQ(p["schedule"].toString().toStdString(), fit::describeSchedule(c.schedule));
            EXPECT_TRUE(p["predicted"].toBool());
            EXPECT_LT(c.lower, c.loss);
            EXPECT_GT(c.upper, c.loss);
        }
    }

    // The hollow series "predicted from curves" of `chart`, with its points in data units.
    static std::vector<QPointF> drawnCheckpoints(QChart* chart) {
        auto* plot = dynamic_cast<figures::PlotChart*>(chart);
        std::vector<QPointF> out;
        for (auto* s : chart->series())
            if (auto* scatter = qobject_cast<QScatterSeries*>(s); scatter && scatter->name() == QLatin1String("predicted from curves")) {
                EXPECT_NE(scatter->color(), scatter->borderColor()) << "hollow: filled with the background";
                for (const QPointF& p : scatter->points()) out.push_back(plot->toData(p));
            }
        return out;
    }

    // Measured IsoFLOP runs beside the curves: five sizes at each of three budgets (C = 6ND), losses
    // from a Chinchilla-shaped law; the table's text.
    static QByteArray isoFlopRunsCsv() {
        QByteArray csv = "run_id,params,tokens,flops,val_loss\n";
        for (double h : {1e17, 2e17, 4e17})
            for (double n : {3e7, 6e7, 1.2e8, 2.4e8, 4.8e8}) {
                const double d = h / (6 * n);
                csv += QStringLiteral("h%1_n%2,%2,%3,%1,%4\n")
                           .arg(h, 0, 'g', 3)
                           .arg(n, 0, 'g', 3)
                           .arg(d, 0, 'g', 10)
                           .arg(1.7 + 400 / std::pow(n, 0.34) + 410 / std::pow(d, 0.28), 0, 'f', 6)
                           .toUtf8();
            }
        return csv;
    }

    // A power law of `fit isoflop --from-curves --json` (n_opt_law, d_opt_law) equals `law` and its interval.
    static void expectSameLaw(const QJsonObject& printed, const fit::PowerLaw& law, const fit::PowerLaw& lower, const fit::PowerLaw& upper) {
        EXPECT_NEAR(printed["exponent"].toDouble(), law.exponent, 1e-9);
        EXPECT_NEAR(printed["coefficient"].toDouble(), law.coefficient, 1e-9 * law.coefficient);
        EXPECT_NEAR(printed["lower"].toObject()["exponent"].toDouble(), lower.exponent, 1e-9);
        EXPECT_NEAR(printed["upper"].toObject()["exponent"].toDouble(), upper.exponent, 1e-9);
        EXPECT_LT(lower.exponent, law.exponent);
        EXPECT_GT(upper.exponent, law.exponent);
    }

    QTemporaryDir tmp_;
    std::vector<QStringList> models_;
    analysis::Study study_;
};

}  // namespace

TEST_F(CheckpointViews, LossSurfaceHoldsTheCheckpointsOfFitLndFromCurves) {
    const figures::FigureInput in{&study_};
    figures::LossSurfaceFigure figure;  // the Checkpoints control at its default
    auto job = figure.takingJob(in);
    ASSERT_TRUE(job) << "a study with loss curves predicts its checkpoints by default";
    job(fit::FitControl{})();
    const auto& shown = figure.checkpoints();
    ASSERT_TRUE(shown.result) << shown.error.toStdString();
    // Four token counts per model, a quarter to all of the longest curve (6,000 steps of 65,536 tokens).
    ASSERT_EQ(shown.result->checkpoints.size(), 12u);
    QStringList tokens;
    for (std::size_t k = 0; k < 4; ++k) {
        EXPECT_DOUBLE_EQ(shown.result->checkpoints[k].tokens, 1500.0 * static_cast<double>(k + 1) * 65536);
        tokens << QString::number(shown.result->checkpoints[k].tokens, 'g', 17);
    }
    expectSameCheckpoints(*shown.result, verb("lnd", {"--checkpoints", tokens.join(',')}));

    figure.draw(in);
    const auto drawn = drawnCheckpoints(figure.charts().front());
    ASSERT_EQ(drawn.size(), 12u);
    EXPECT_NEAR(drawn.front().x(), 1e8, 1e8 * 1e-9);
    EXPECT_NEAR(drawn.front().y(), 1500.0 * 65536, 1e-3);
    EXPECT_EQ(figure.shownRows().size(), 12u) << "listed with their intervals";

    // Turned off, none are predicted or drawn.
    ASSERT_TRUE(figure.setControls(QJsonObject{{"checkpoints", "none"}}, in).isEmpty());
    EXPECT_FALSE(figure.takingJob(in));
    EXPECT_FALSE(figure.checkpoints().result);
    figure.draw(in);
    EXPECT_TRUE(drawnCheckpoints(figure.charts().front()).empty());
}

TEST_F(CheckpointViews, IsoFlopHoldsTheCheckpointsOfFitIsoFlopFromCurvesWithErrorBars) {
    const figures::FigureInput in{&study_};
    figures::IsoFlopFigure figure;
    figure.compute(in);
    const auto& shown = figure.checkpoints();
    ASSERT_TRUE(shown.result) << shown.error.toStdString();
    // The tracker runs form no IsoFLOP budgets: the checkpoints sit at 6·N·D of the token counts
    // above, N the geometric middle of 1e8 and 9e8 (3e8), D = H/(6N) for each model.
    ASSERT_EQ(shown.result->checkpoints.size(), 12u);
    std::set<double> budgets;
    for (const auto& c : shown.result->checkpoints) budgets.insert(c.budget);
    ASSERT_EQ(budgets.size(), 4u);
    EXPECT_NEAR(*budgets.begin(), 6 * 3e8 * 1500.0 * 65536, 1e3);
    QStringList asked;
    for (std::size_t k = 0; k < 4; ++k) asked << QString::number(shown.result->checkpoints[k].budget, 'g', 17);
    expectSameCheckpoints(*shown.result, verb("isoflop", {"--budgets", asked.join(',')}));

    figure.draw(in);
    QChart* profiles = figure.profileChart();
    const auto drawn = drawnCheckpoints(profiles);
    ASSERT_EQ(drawn.size(), 12u);
    // Each checkpoint's interval as a vertical bar at its N, from its lower to its upper loss.
    auto* plot = dynamic_cast<figures::PlotChart*>(profiles);
    int bars = 0;
    for (const auto& c : shown.result->checkpoints)
        for (auto* s : profiles->series())
            if (auto* line = qobject_cast<QLineSeries*>(s); line && !qobject_cast<QScatterSeries*>(s) && line->count() == 2) {
                const QPointF a = plot->toData(line->at(0)), b = plot->toData(line->at(1));
                if (std::abs(a.x() - c.params) < 1e-6 * c.params && std::abs(a.y() - c.lower) < 1e-9 && std::abs(b.y() - c.upper) < 1e-9) ++bars;
            }
    EXPECT_EQ(bars, 12);
    EXPECT_TRUE(figure.summary().contains("12 checkpoints of 3 models")) << figure.summary().toStdString();
}

TEST_F(CheckpointViews, IsoFlopPredictsAtTheBudgetsOfTheStudysProfiles) {
    auto table = data::parseRunTable(isoFlopRunsCsv(), "isoflop_runs");
    ASSERT_TRUE(table.ok()) << table.error().toString();
    study_.addRuns(std::move(*table), "isoflop_runs");
    const figures::FigureInput in{&study_};
    figures::IsoFlopFigure figure;
    figure.compute(in);
    std::set<double> profiles, predicted;
    for (const auto& p : figure.result(false).profiles) profiles.insert(p.budget);
    ASSERT_EQ(profiles.size(), 3u) << "a profile per budget, as the study reads them";
    const auto& shown = figure.checkpoints();
    ASSERT_TRUE(shown.result) << shown.error.toStdString();
    for (const auto& c : shown.result->checkpoints) predicted.insert(c.budget);
    EXPECT_EQ(predicted, profiles) << "each model's checkpoints at the budgets of the profiles drawn";
    EXPECT_EQ(shown.result->checkpoints.size(), 9u);
}

TEST_F(CheckpointViews, LossSurfaceFittedWithTheCheckpointsEqualsFitLndFromCurves) {
    const figures::FigureInput in{&study_};
    figures::LossSurfaceFigure figure;
    ASSERT_TRUE(figure.setControls(QJsonObject{{"checkpoints", "fitted"}}, in).isEmpty());
    EXPECT_EQ(figure.demandedAction(), "fit");
    auto job = figure.studyActionJob("fit", in);
    ASSERT_TRUE(job);
    job(fit::FitControl{})();
    ASSERT_TRUE(figure.problem().isEmpty()) << figure.problem().toStdString();
    const auto& fitted = figure.fitWithCheckpoints();
    ASSERT_TRUE(fitted);
    // Every run of the study is a loss curve: its own last loss (a constant-rate run's is no
    // end-of-cooldown loss) stays out, its model's 4 checkpoints stand for it.
    EXPECT_TRUE(fitted->measured.empty());
    ASSERT_EQ(fitted->predicted.size(), 12u);
    ASSERT_TRUE(figure.result());
    EXPECT_EQ(figure.result()->nPoints, 12u);
    QStringList tokens;
    for (std::size_t k = 0; k < 4; ++k) tokens << QString::number(fitted->predicted[k].tokens, 'g', 17);

    // The program's fit of the same files at the same token counts, with its default 200 replicates.
    const QJsonObject printed = verb("lnd", {"--checkpoints", tokens.join(',')}, "200")["fit"].toObject();
    const QJsonObject params = printed["params"].toObject();
    const fit::LossSurfaceParams& shown = figure.result()->best;
    // E, A, B (natural logs in the JSON) and the exponents, with their intervals.
    for (const auto& [name, value, lower, upper] :
         {std::tuple{"log_e", shown.logE, fitted->lower.logE, fitted->upper.logE}, std::tuple{"log_a", shown.logA, fitted->lower.logA, fitted->upper.logA},
          std::tuple{"log_b", shown.logB, fitted->lower.logB, fitted->upper.logB}, std::tuple{"alpha", shown.alpha, fitted->lower.alpha, fitted->upper.alpha},
          std::tuple{"beta", shown.beta, fitted->lower.beta, fitted->upper.beta}}) {
        const QJsonObject p = params[name].toObject();
        EXPECT_NEAR(p["value"].toDouble(), value, 1e-9 * std::max(1.0, std::abs(value))) << name;
        EXPECT_NEAR(p["lower"].toDouble(), lower, 1e-9 * std::max(1.0, std::abs(lower))) << name;
        EXPECT_NEAR(p["upper"].toDouble(), upper, 1e-9 * std::max(1.0, std::abs(upper))) << name;
    }
    EXPECT_EQ(printed["replicates"].toInt(), fitted->replicates);
    EXPECT_GT(fitted->replicates, 100);
    EXPECT_LT(fitted->lower.alpha, shown.alpha);
    EXPECT_GT(fitted->upper.alpha, shown.alpha);

    figure.draw(in);
    EXPECT_TRUE(figure.summary().contains("Fitted on 0 measured runs and 12 predicted checkpoints")) << figure.summary().toStdString();
    // Back to drawing them only: the fit is asked again, and made on the measured runs alone.
    ASSERT_TRUE(figure.setControls(QJsonObject{{"checkpoints", "curves"}}, in).isEmpty());
    figure.draw(in);
    EXPECT_EQ(figure.demandedAction(), "fit");
    EXPECT_FALSE(figure.fitWithCheckpoints());
}

TEST_F(CheckpointViews, IsoFlopFittedWithTheCheckpointsEqualsFitIsoFlopFromCurves) {
    const QByteArray csv = isoFlopRunsCsv();
    auto table = data::parseRunTable(csv, "isoflop_runs");
    ASSERT_TRUE(table.ok()) << table.error().toString();
    study_.addRuns(std::move(*table), "isoflop_runs");
    const QString runsFile = tmp_.filePath("isoflop_runs.csv");
    QFile out(runsFile);
    ASSERT_TRUE(out.open(QIODevice::WriteOnly));
    out.write(csv);
    out.close();

    const figures::FigureInput in{&study_};
    figures::IsoFlopFigure figure;
    // The profiles of the measured runs' series take the checkpoints (as --data gives the verb those runs).
    ASSERT_TRUE(figure.setControls(QJsonObject{{"checkpoints", "fitted"}, {"family", "isoflop_runs"}}, in).isEmpty());
    figure.compute(in);
    ASSERT_EQ(figure.seriesShown(false), "isoflop_runs");
    const auto& fitted = figure.fitWithCheckpoints();
    ASSERT_TRUE(fitted) << figure.checkpoints().error.toStdString();
    // The 15 measured runs and each model's checkpoints at the 3 budgets of their profiles.
    EXPECT_EQ(fitted->measured.size(), 15u);
    ASSERT_EQ(fitted->predicted.size(), 9u);
    const fit::IsoFlopResult& shown = figure.result(false);
    ASSERT_EQ(shown.profiles.size(), 3u);
    for (const auto& p : shown.profiles) EXPECT_EQ(p.nRuns, 8) << "5 measured and 3 predicted at " << p.budget;
    // The budgets of the study's profiles (the measured runs' clusters of C), as --budgets.
    std::set<double> budgets;
    for (const auto& c : fitted->predicted) budgets.insert(c.budget);
    QStringList asked;
    for (double h : budgets) asked << QString::number(h, 'g', 17);
    ASSERT_EQ(asked.size(), 3);

    const QJsonObject printed = verb("isoflop", {"--data", runsFile, "--budgets", asked.join(',')}, "200")["fit"].toObject();
    EXPECT_EQ(printed["points"].toArray().size(), 24);
    // Each profile's parabola through the same 8 points: the same optimum, and the same reason to
    // leave it out of the power laws (the two studies' losses are of different laws: most optima
    // fall outside the sizes sampled).
    const QJsonArray profiles = printed["profiles"].toArray();
    ASSERT_EQ(profiles.size(), 3);
    for (std::size_t k = 0; k < 3; ++k) {
        const QJsonObject p = profiles[static_cast<qsizetype>(k)].toObject();
        const auto& q = shown.profiles[k];
        EXPECT_DOUBLE_EQ(p["budget"].toDouble(), q.budget);
        EXPECT_EQ(p["n_runs"].toInt(), q.nRuns);
        ASSERT_TRUE(q.fitted);
        EXPECT_NEAR(p["n_opt"].toDouble(), q.nOpt, 1e-9 * q.nOpt) << q.budget;
        EXPECT_NEAR(p["d_opt"].toDouble(), q.dOpt, 1e-9 * q.dOpt) << q.budget;
        EXPECT_NEAR(p["loss"].toDouble(), q.lossAtNOpt, 1e-9) << q.budget;
        EXPECT_EQ(p["in_power_law"].toBool(), q.inPowerLaw) << q.budget;
        EXPECT_EQ(p["left_out"].toString().toStdString(), q.leftOut) << q.budget;
    }
    EXPECT_EQ(printed["n_opt_law"].isNull(), !shown.nOptLaw);
    if (shown.nOptLaw) expectSameLaw(printed["n_opt_law"].toObject(), *shown.nOptLaw, fitted->nOptLower, fitted->nOptUpper);

    figure.draw(in);
    EXPECT_TRUE(figure.summary().contains("fitted on 15 measured runs and 9 predicted checkpoints")) << figure.summary().toStdString();
}

TEST_F(CheckpointViews, IsoFlopFittedOnTheCheckpointsAloneEqualsFitIsoFlopFromCurves) {
    // No IsoFLOP runs beside the curves: the law is the checkpoints' alone, at the budgets placed from the curves.
    const figures::FigureInput in{&study_};
    figures::IsoFlopFigure figure;
    ASSERT_TRUE(figure.setControls(QJsonObject{{"checkpoints", "fitted"}}, in).isEmpty());
    figure.compute(in);
    const auto& fitted = figure.fitWithCheckpoints();
    ASSERT_TRUE(fitted) << figure.checkpoints().error.toStdString();
    EXPECT_TRUE(fitted->measured.empty());
    ASSERT_EQ(fitted->predicted.size(), 12u);
    QStringList budgets;
    for (std::size_t k = 0; k < 4; ++k) budgets << QString::number(fitted->predicted[k].budget, 'g', 17);
    const fit::IsoFlopResult& shown = figure.result(false);
    ASSERT_TRUE(shown.nOptLaw && shown.dOptLaw);
    const QJsonObject printed = verb("isoflop", {"--budgets", budgets.join(',')}, "200")["fit"].toObject();
    expectSameLaw(printed["n_opt_law"].toObject(), *shown.nOptLaw, fitted->nOptLower, fitted->nOptUpper);
    expectSameLaw(printed["d_opt_law"].toObject(), *shown.dOptLaw, fitted->dOptLower, fitted->dOptUpper);

    // Another view of the same study and controls takes the fit kept, not a second one.
    figures::IsoFlopFigure again;
    ASSERT_TRUE(again.setControls(QJsonObject{{"checkpoints", "fitted"}}, in).isEmpty());
    again.compute(in);
    EXPECT_EQ(again.fitWithCheckpoints().get(), fitted.get());
}
