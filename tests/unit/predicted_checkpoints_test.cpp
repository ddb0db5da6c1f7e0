// Checkpoints in scaling laws (core/analysis/PredictedCheckpoints): on a study generated from
// known Multi-Power Law parameters per model (one constant-rate run and two WSD runs each, with
// noise), the L(N,D) law fitted from the predicted end-of-cooldown losses recovers the law fitted
// from the true end-of-cooldown losses of the same schedules, its intervals hold the true law's
// parameters, and the predicted points are marked; a model with too few curves is named.
#include <gtest/gtest.h>

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/analysis/PredictedCheckpoints.h"
#include "core/fit/SplitMix64.h"
#include "tests/support/TestData.h"

using namespace scalex;

namespace {

constexpr double kPeak = 3e-4;        // the MPL authors' 400M runs peak here
constexpr long kWarmup = 200;
constexpr double kTokensPerStep = 64 * 1024;  // batch_size 64 x sequence_length 1024
constexpr double kNoiseSd = 0.002;    // of ln L on each logged point

// The MPL's published 400M parameters (Luo et al., repository README "Best Parameters") with its
// L0 made a function of N: L0(N) = 1.9 + 300·N^-0.3, so that larger models reach lower losses.
std::vector<double> mplOf(double params) { return {1.9 + 300 * std::pow(params, -0.3), 0.654, 0.429, 523.425, 2.025, 0.594, 0.635}; }

fit::ScheduleSpec wsd(long steps, double cooldown) {
    fit::ScheduleSpec s;
    s.shape = cooldown > 0 ? fit::ScheduleShape::Wsd : fit::ScheduleShape::Constant;
    s.peakLr = kPeak;
    s.steps = steps;
    s.warmupSteps = kWarmup;
    s.cooldownFraction = cooldown;
    return s;
}

double trueLoss(double params, const fit::ScheduleSpec& spec, long step) {
    fit::CurveLawOptions o;
    o.tokensPerStep = kTokensPerStep;
    const fit::PreparedSchedule schedule(fit::Schedule::fromSpec(spec), o);
    return schedule.loss(fit::CurveLaw::MultiPower, mplOf(params), step);
}

// A tracker export of one run (the shape of lr-schedules/): its schedule in the config, its
// validation loss every 50 steps from step 0.
std::string writeRun(const QDir& dir, const std::string& name, double params, long steps, double cooldown, std::uint64_t seed) {
    auto rng = fit::SplitMix64::stream(seed, 0);
    const auto spec = wsd(steps, cooldown);
    QJsonArray iters, losses;
    for (long t = 0; t <= steps; t += 50) {
        iters.append(static_cast<double>(t));
        losses.append(t == 0 ? 10.8 : trueLoss(params, spec, t) * std::exp(kNoiseSd * rng.normal()));
    }
    const QJsonObject config{{"lr", kPeak},          {"iterations", static_cast<double>(steps)}, {"warmup_steps", static_cast<double>(kWarmup)},
                             {"scheduler", "wsd"},   {"wsd_fract_decay", cooldown},              {"decay_type", "linear"},
                             {"batch_size", 64},     {"sequence_length", 1024},                  {"n_params", params}};
    const QJsonObject root{{"name", QString::fromStdString(name)},
                           {"config", config},
                           {"history", QJsonObject{{"val", QJsonObject{{"iter", iters}, {"val_loss", losses}}}}}};
    const QString path = dir.filePath(QString::fromStdString(name) + ".json");
    QFile f(path);
    EXPECT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(QJsonDocument(root).toJson(QJsonDocument::Compact));
    return path.toStdString();
}

const std::vector<double> kModels{5e7, 1e8, 2e8, 4e8, 8e8};
const std::vector<double> kCheckpointSteps{2000, 4000, 6000, 8000};

// Per model a constant-rate run of 8,000 steps and two short WSD runs (20 % and 50 % cooldown).
analysis::PredictedCheckpointOptions generatedStudy(const QDir& dir) {
    analysis::PredictedCheckpointOptions o;
    std::uint64_t seed = 1;
    for (double n : kModels) {
        const std::string m = "m" + std::to_string(static_cast<long>(n / 1e6));
        o.models.push_back({{writeRun(dir, m + "-constant", n, 8000, 0, seed++), writeRun(dir, m + "-wsd20", n, 3000, 0.2, seed++),
                             writeRun(dir, m + "-wsd50", n, 5000, 0.5, seed++)}});
    }
    for (double s : kCheckpointSteps) o.tokens.push_back(s * kTokensPerStep);
    return o;
}

fit::LossSurfaceSettings quickGrid() {
    fit::LossSurfaceSettings s;
    s.grid = {{0, 5, 10}, {0, 5, 10}, {-1, 0, 1}, {0.2, 0.5}, {0.2, 0.5}, {0.5, 1, 2}};
    return s;
}

}  // namespace

TEST(PredictedCheckpoints, LawFromPredictedCheckpointsRecoversTheLawFromTrueCooldownRuns) {
    QTemporaryDir tmp;
    ASSERT_TRUE(tmp.isValid());
    const auto options = generatedStudy(QDir(tmp.path()));
    const auto predicted = analysis::predictCheckpoints(options);  // the best cooldown of each budget: the default
    ASSERT_TRUE(predicted.ok()) << predicted.error().toString();
    ASSERT_EQ(predicted->checkpoints.size(), kModels.size() * kCheckpointSteps.size());
    // The truth: each checkpoint's own schedule under the model's generating parameters.
    std::vector<fit::LossPoint> truth;
    double worst = 0;
    int covered = 0;
    for (const auto& c : predicted->checkpoints) {
        EXPECT_TRUE(c.predicted);
        EXPECT_EQ(c.schedule.shape, fit::ScheduleShape::Wsd);
        EXPECT_DOUBLE_EQ(c.flops, 6 * c.params * c.tokens);
        EXPECT_GT(c.lnSd, 0) << "every prediction has its interval";
        const double t = trueLoss(c.params, c.schedule, c.schedule.steps);
        truth.push_back({c.params, c.tokens, t});
        worst = std::max(worst, std::abs(c.loss / t - 1));
        covered += c.lower <= t && t <= c.upper;
        std::printf("%s D=%.3g cooldown %.3f: predicted %.4f [%.4f, %.4f], true %.4f\n", c.model.c_str(), c.tokens, c.schedule.cooldownFraction,
                    c.loss, c.lower, c.upper, t);
    }
    // Measured: worst 0.0057 (a 400M checkpoint of 2,000 steps).
    EXPECT_LT(worst, 0.01) << "each predicted checkpoint within 1 % of its true loss";
    EXPECT_GE(covered, static_cast<int>(truth.size()) * 8 / 10) << "the 95 % intervals hold most true losses";

    const auto settings = quickGrid();
    const auto fromTruth = analysis::fitSurfaceWithCheckpoints(truth, {}, settings);
    const auto fromPredicted = analysis::fitSurfaceWithCheckpoints({}, predicted->checkpoints, settings);
    ASSERT_TRUE(fromTruth.ok() && fromPredicted.ok());
    const auto& a = fromTruth->fit.best;
    const auto& b = fromPredicted->fit.best;
    std::printf("true runs:   logA %.3f logB %.3f logE %.3f alpha %.3f beta %.3f gamma %.3f\n", a.logA, a.logB, a.logE, a.alpha, a.beta, a.gamma);
    std::printf("predicted:   logA %.3f logB %.3f logE %.3f alpha %.3f beta %.3f gamma %.3f (%d replicates)\n", b.logA, b.logB, b.logE, b.alpha,
                b.beta, b.gamma, fromPredicted->replicates);
    // Measured: alpha 0.288 against 0.298, beta 0.450 against 0.461.
    EXPECT_NEAR(b.alpha, a.alpha, 0.03);
    EXPECT_NEAR(b.beta, a.beta, 0.03);
    const auto lo = fromPredicted->lower.asArray(), hi = fromPredicted->upper.asArray(), va = a.asArray();
    for (std::size_t k = 0; k < 6; ++k) {
        std::printf("  param %zu: [%.3f, %.3f]\n", k, lo[k], hi[k]);
        EXPECT_LE(lo[k], va[k]) << "param " << k << ": the true runs' law inside the predicted law's interval";
        EXPECT_GE(hi[k], va[k]) << "param " << k;
    }
    EXPECT_EQ(fromPredicted->replicates, analysis::CheckpointSurfaceOptions{}.replicates);
    // The two surfaces agree where the runs are, and a step beyond.
    double surfaceWorst = 0;
    for (double n : {5e7, 2e8, 8e8, 1.6e9})
        for (double d : {1e8, 5e8, 1e9})
            surfaceWorst = std::max(surfaceWorst, std::abs(b.loss(n, d) / a.loss(n, d) - 1));
    std::printf("worst relative difference of the two surfaces: %.4f\n", surfaceWorst);  // measured 0.0044
    EXPECT_LT(surfaceWorst, 0.01);
    // Marked in the JSON: every checkpoint predicted, with its interval.
    const QJsonObject json = analysis::checkpointSurfaceJson(*fromPredicted);
    const QJsonArray points = json.value("points").toArray();
    ASSERT_EQ(points.size(), static_cast<qsizetype>(predicted->checkpoints.size()));
    for (const auto& p : points) {
        EXPECT_TRUE(p.toObject().value("predicted").toBool());
        EXPECT_GT(p.toObject().value("ln_sd").toDouble(), 0);
    }
    EXPECT_FALSE(analysis::checkpointSurfaceJson(*fromTruth).value("points").toArray().first().toObject().value("predicted").toBool());
}

// IsoFLOP from predicted checkpoints: per model D = H/(6N) at each budget, the checkpoint's loss
// predicted by its law; the profiles' optima and N*(H), D*(H) from them against those from the
// true end-of-cooldown losses of the same schedules. The generating L0(N) and the MPL's A·S1^-α
// put N* near 2e8 at H = 2e17, inside the models' range.
TEST(PredictedCheckpoints, IsoFlopFromPredictedCheckpointsRecoversTheTrueExponents) {
    QTemporaryDir tmp;
    ASSERT_TRUE(tmp.isValid());
    auto options = generatedStudy(QDir(tmp.path()));
    options.tokens.clear();
    const std::vector<double> budgets{1e17, 2e17, 4e17};
    options.budgets = budgets;
    const auto predicted = analysis::predictCheckpoints(options);
    ASSERT_TRUE(predicted.ok()) << predicted.error().toString();
    ASSERT_EQ(predicted->checkpoints.size(), kModels.size() * budgets.size());
    std::vector<fit::IsoFlopRun> truth;
    for (const auto& c : predicted->checkpoints) {
        EXPECT_TRUE(c.predicted);
        EXPECT_GT(c.lnSd, 0) << "every prediction has its interval";
        EXPECT_NEAR(c.flops / c.budget, 1, 1e-3) << "D = H/(6N), to a whole step";
        EXPECT_NE(std::find(budgets.begin(), budgets.end(), c.budget), budgets.end());
        truth.push_back({c.params, c.tokens, c.flops, trueLoss(c.params, c.schedule, c.schedule.steps)});
        std::printf("%s H=%.3g D=%.3g (%ld steps): predicted %.4f [%.4f, %.4f], true %.4f\n", c.model.c_str(), c.budget, c.tokens,
                    c.schedule.steps, c.loss, c.lower, c.upper, truth.back().loss);
    }
    fit::IsoFlopSettings settings;
    settings.budgets = budgets;
    const auto fromTruth = analysis::fitIsoFlopWithCheckpoints(truth, {}, settings);
    const auto fromPredicted = analysis::fitIsoFlopWithCheckpoints({}, predicted->checkpoints, settings);
    ASSERT_TRUE(fromTruth.ok() && fromPredicted.ok());
    ASSERT_TRUE(fromTruth->fit.nOptLaw && fromTruth->fit.dOptLaw) << "the true profiles' optima lie inside the models' range";
    ASSERT_TRUE(fromPredicted->fit.nOptLaw && fromPredicted->fit.dOptLaw);
    const auto& t = fromTruth->fit;
    const auto& p = fromPredicted->fit;
    for (std::size_t k = 0; k < p.profiles.size(); ++k)
        std::printf("H=%.3g: N* %.4g (true %.4g), D* %.4g (true %.4g)\n", p.profiles[k].budget, p.profiles[k].nOpt, t.profiles[k].nOpt,
                    p.profiles[k].dOpt, t.profiles[k].dOpt);
    for (std::size_t k = 0; k < p.profiles.size(); ++k) EXPECT_NEAR(p.profiles[k].nOpt / t.profiles[k].nOpt, 1, 0.05) << "measured within 2.5 %";
    std::printf("N*(H) exponent %.4f [%.4f, %.4f], true %.4f; D*(H) exponent %.4f [%.4f, %.4f], true %.4f (%d replicates)\n", p.nOptLaw->exponent,
                fromPredicted->nOptLower.exponent, fromPredicted->nOptUpper.exponent, t.nOptLaw->exponent, p.dOptLaw->exponent,
                fromPredicted->dOptLower.exponent, fromPredicted->dOptUpper.exponent, t.dOptLaw->exponent, fromPredicted->replicates);
    // Measured: N*(H) exponent 0.535 [0.412, 0.732] against 0.549, D*(H) 0.465 [0.268, 0.588] against 0.451.
    EXPECT_NEAR(p.nOptLaw->exponent, t.nOptLaw->exponent, 0.05);
    EXPECT_NEAR(p.dOptLaw->exponent, t.dOptLaw->exponent, 0.05);
    EXPECT_LE(fromPredicted->nOptLower.exponent, t.nOptLaw->exponent) << "the true exponent inside the predicted one's interval";
    EXPECT_GE(fromPredicted->nOptUpper.exponent, t.nOptLaw->exponent);
    EXPECT_LE(fromPredicted->dOptLower.exponent, t.dOptLaw->exponent);
    EXPECT_GE(fromPredicted->dOptUpper.exponent, t.dOptLaw->exponent);
    EXPECT_LT(fromPredicted->nOptLower.exponent, fromPredicted->nOptUpper.exponent) << "the checkpoints' intervals widen the law's";
    EXPECT_EQ(fromPredicted->replicates, analysis::CheckpointSurfaceOptions{}.replicates);
    // Marked in the JSON, with the budget each was asked at.
    const QJsonObject json = analysis::checkpointIsoFlopJson(*fromPredicted);
    const QJsonArray points = json.value("points").toArray();
    ASSERT_EQ(points.size(), static_cast<qsizetype>(predicted->checkpoints.size()));
    for (const auto& v : points) {
        EXPECT_TRUE(v.toObject().value("predicted").toBool());
        EXPECT_GT(v.toObject().value("budget").toDouble(), 0);
    }
    EXPECT_FALSE(analysis::checkpointIsoFlopJson(*fromTruth).value("points").toArray().first().toObject().value("predicted").toBool());
    EXPECT_NEAR(json.value("n_opt_law").toObject().value("exponent").toDouble(), p.nOptLaw->exponent, 1e-12);
}

TEST(PredictedCheckpoints, AGivenCooldownFractionIsTheCheckpointsSchedule) {
    QTemporaryDir tmp;
    ASSERT_TRUE(tmp.isValid());
    auto options = generatedStudy(QDir(tmp.path()));
    options.models.resize(1);
    options.cooldownFraction = 0.2;
    options.tokens.push_back(12000 * kTokensPerStep);  // beyond the 8,000-step constant-rate run
    const auto predicted = analysis::predictCheckpoints(options);
    ASSERT_TRUE(predicted.ok()) << predicted.error().toString();
    ASSERT_EQ(predicted->notes.size(), 2u);
    EXPECT_NE(predicted->notes.back().find("12000 steps) lie beyond its longest curve (8000 steps): extrapolated"), std::string::npos)
        << predicted->notes.back();
    for (const auto& c : predicted->checkpoints) {
        EXPECT_DOUBLE_EQ(c.schedule.cooldownFraction, 0.2);
        EXPECT_EQ(c.schedule.decay, fit::DecayShape::Linear);
        EXPECT_EQ(c.schedule.warmupSteps, kWarmup);
        EXPECT_DOUBLE_EQ(c.schedule.peakLr, kPeak);
        EXPECT_NEAR(c.loss, trueLoss(c.params, c.schedule, c.schedule.steps), 0.01 * c.loss);
    }
}

TEST(PredictedCheckpoints, ErrorsNameTheModelTheFileAndTheOption) {
    QTemporaryDir tmp;
    ASSERT_TRUE(tmp.isValid());
    const QDir dir(tmp.path());
    analysis::PredictedCheckpointOptions o;
    o.tokens = {1e8};
    auto r = analysis::predictCheckpoints(o);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().column, "--from-curves");
    // A model with two curves: named, with its first file.
    const std::string first = writeRun(dir, "small-constant", 5e7, 4000, 0, 1);
    o.models = {{{first, writeRun(dir, "small-wsd", 5e7, 2000, 0.2, 2)}}};
    r = analysis::predictCheckpoints(o);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().file, first);
    EXPECT_NE(r.error().message.find("'small-constant' has 2 curves"), std::string::npos) << r.error().message;
    // No token counts; a checkpoint inside the warm-up.
    o.models.front().files.push_back(writeRun(dir, "small-wsd50", 5e7, 3000, 0.5, 3));
    o.tokens.clear();
    r = analysis::predictCheckpoints(o);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().column, "--checkpoints");
    o.tokens = {100 * kTokensPerStep};
    r = analysis::predictCheckpoints(o);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().column, "--checkpoints");
    EXPECT_NE(r.error().message.find("warm-up of 200"), std::string::npos) << r.error().message;
    // A budget whose D is inside the warm-up, a budget that is not positive: named --budgets.
    o.tokens.clear();
    o.budgets = {6 * 5e7 * 100 * kTokensPerStep};
    r = analysis::predictCheckpoints(o);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().column, "--budgets");
    EXPECT_NE(r.error().message.find("budget 1.966e+15 gives"), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find("warm-up of 200"), std::string::npos) << r.error().message;
    o.budgets = {-1};
    r = analysis::predictCheckpoints(o);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().column, "--budgets");
    const auto tooFew = analysis::fitIsoFlopWithCheckpoints({}, std::vector<analysis::PredictedCheckpoint>(2), fit::IsoFlopSettings{});
    ASSERT_FALSE(tooFew.ok());
    EXPECT_EQ(tooFew.error().column, "--budgets");
    // Fewer than six points for L(N,D).
    const auto few = analysis::fitSurfaceWithCheckpoints({}, std::vector<analysis::PredictedCheckpoint>(3), quickGrid());
    ASSERT_FALSE(few.ok());
    EXPECT_EQ(few.error().column, "--checkpoints");
}

// One real model (lr-schedules/, 124M at peak rate 1e-3): its constant-rate and cosine curves'
// law predicts, as checkpoints, the end-of-cooldown loss of each linear 20 % cooldown run (15,000
// to 50,000 steps). Their last periodic validation loss is logged 200 steps before the end (the
// rate still 4 % to 1.3 % of the peak), so the end of the cooldown lies a little below it.
// Measured: predicted 0.78 % (50,000 steps) to 1.11 % (15,000 steps) below the last logged loss.
TEST(PredictedCheckpoints, OneRealModelsCheckpointsPredictItsCooldownRuns) {
    SCALEX_REQUIRE_SHARED();
    const QDir dir(test::sharedPath("data/public/lr-schedules"));
    const auto files = [&](const QString& pattern) {
        std::vector<std::string> out;
        for (const auto& name : dir.entryList({pattern}, QDir::Files, QDir::Name)) out.push_back(dir.filePath(name).toStdString());
        return out;
    };
    analysis::PredictedCheckpointOptions o;
    analysis::CheckpointModel model;
    model.params = 124e6;
    for (const QString prefix : {"stable-124m", "cos-"})
        for (const auto& f : files(prefix + "*_lr0.001_sched_*.json")) model.files.push_back(f);
    ASSERT_EQ(model.files.size(), 7u);
    o.models = {model};
    o.cooldownFraction = 0.2;
    const auto observed = files("ann124-0.2_*_lr0.001_*_decay_linear_*.json");
    ASSERT_EQ(observed.size(), 4u);
    std::vector<double> finals;
    for (const auto& f : observed) {
        const auto run = data::loadTrackerRun(f);
        ASSERT_TRUE(run.ok()) << run.error().toString();
        o.tokens.push_back(run->configNumber("iterations") * run->tokensPerStep);
        double last = NAN;
        for (const auto& p : run->curve.points)
            if (std::isfinite(p.valLoss)) last = p.valLoss;
        finals.push_back(last);
    }
    const auto predicted = analysis::predictCheckpoints(o);
    ASSERT_TRUE(predicted.ok()) << predicted.error().toString();
    ASSERT_EQ(predicted->checkpoints.size(), finals.size());
    for (std::size_t i = 0; i < finals.size(); ++i) {
        const auto& c = predicted->checkpoints[i];
        const double error = c.loss / finals[i] - 1;
        std::printf("cooldown 0.2, %ld steps: predicted %.4f [%.4f, %.4f], last logged %.4f, error %+.4f\n", c.schedule.steps, c.loss, c.lower,
                    c.upper, finals[i], error);
        EXPECT_EQ(c.schedule.steps, std::lround(o.tokens[i] / 200 / 512)) << "batch 50 x 2 x 2 GPUs x 512 tokens a step";
        EXPECT_LT(error, 0) << observed[i];
        EXPECT_GT(error, -0.015) << observed[i];
        EXPECT_LE(c.lower, finals[i] * (1 - 0.003)) << observed[i];
    }
}
