// Defaults a careful researcher would choose, on studies shaped unlike the paper's (generated here):
// a merged collection whose `model` column names the architecture and `experiment` the study; a
// learning-rate sweep whose `model` column names the size; an IsoFLOP sweep whose smallest budgets
// put their optimum outside the sizes trained; runs of one model size. Each test runs the program
// with no options, as a new user would, and checks the one answer every path gives.
#include <gtest/gtest.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QMap>
#include <QTemporaryDir>
#include <cmath>

#include "tests/cli/ScalexProcess.h"
#include "tests/support/TestData.h"

using scalex::test::runScalex;

namespace {

void writeLines(const QString& path, const QStringList& lines) {
    QFile f(path);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write((lines.join('\n') + '\n').toUtf8());
}

QString g12(double v) { return QString::number(v, 'g', 12); }

// IsoFLOP profiles whose optima follow N* = 0.1·H^a: loss = 2 + 0.08·(log10 N − log10 N*)² + 0.5/log10 H
// (times `scale`, plus `jitter`·(−1, 0, 1) in turn), N over ±0.6 decades, D = H/6N.
void addProfiles(QStringList& lines, const QString& prefix, double a, double scale, double jitter) {
    int turn = 0;
    for (double h : {6e18, 3e19, 1e20, 1e21, 1e22}) {
        const double logOpt = std::log10(0.1) + a * std::log10(h);
        for (int k = -3; k <= 3; ++k) {
            const double logN = logOpt + 0.2 * k, n = std::pow(10.0, logN), d = h / (6 * n);
            const double loss = scale * (2 + 0.08 * (logN - logOpt) * (logN - logOpt) + 0.5 / std::log10(h)) + jitter * ((turn++ % 3) - 1);
            lines << prefix + QStringLiteral("%1,%2,%3,%4").arg(g12(n), g12(d), g12(h), g12(loss));
        }
    }
}

// Five studies merged into one table. Two were digitised from the same paper (the same points,
// read twice) and share `model`; two are one study's raw and normalised losses and share `model`;
// `experiment` tells all five apart.
QString writeMerged(const QTemporaryDir& dir) {
    QStringList lines{"experiment,model,params,tokens,compute_budget,validation_loss"};
    addProfiles(lines, "hoffmann_fig3_digitised,chinchilla,", 0.50, 1.0, 0);
    addProfiles(lines, "hoffmann_fig4_digitised,chinchilla,", 0.50, 1.0, 0.002);
    addProfiles(lines, "porian_raw,porian-transformer,", 0.55, 1.0, 0);
    addProfiles(lines, "porian_normalised,porian-transformer,", 0.55, 1.0 / std::log(50304.0), 0);
    addProfiles(lines, "besiroglu_mamba,mamba,", 0.45, 1.0, 0);
    const QString path = dir.filePath("merged.csv");
    writeLines(path, lines);
    return path;
}

// L(N,D) = 1.8 + 400/N^0.34 + 2000/D^0.37 at five sizes named in `model`, five token counts each,
// each trained at three peak learning rates; the runs away from 2e-3 lose 0.03 per doubling.
constexpr double kE = 1.8, kA = 400, kAlpha = 0.34, kB = 2000, kBeta = 0.37;
QString writeLrSweep(const QTemporaryDir& dir) {
    QStringList lines{"model,peak_lr,params,tokens,validation_loss"};
    const std::pair<const char*, double> sizes[] = {{"12m", 12e6}, {"35m", 35e6}, {"90m", 90e6}, {"200m", 200e6}, {"500m", 500e6}};
    for (const auto& [name, n] : sizes)
        for (double ratio : {5.0, 10.0, 20.0, 40.0, 80.0})
            for (double lr : {1e-3, 2e-3, 4e-3}) {
                const double d = ratio * n;
                const double loss = kE + kA / std::pow(n, kAlpha) + kB / std::pow(d, kBeta) + 0.03 * std::abs(std::log2(lr / 2e-3));
                lines << QStringLiteral("sweep_%1,%2,%3,%4,%5").arg(QLatin1String(name)).arg(lr).arg(g12(n), g12(d), g12(loss));
            }
    const QString path = dir.filePath("lr_sweep.csv");
    writeLines(path, lines);
    return path;
}

// An IsoFLOP sweep whose optima follow N* = 0.1·H^0.5. The three smallest budgets trained only
// models larger than their optimum, and a long warm-up bends their profiles (a cubic term), so a
// parabola through them puts N* outside the sizes trained.
QString writeExtrapolated(const QTemporaryDir& dir) {
    QStringList lines{"params,tokens,compute_budget,validation_loss"};
    for (double h : {1e17, 3e17, 1e18, 1e19, 1e20, 1e21, 1e22}) {
        const double logOpt = std::log10(0.1) + 0.5 * std::log10(h);
        const bool small = h < 5e18;
        for (int k = 0; k < 7; ++k) {
            const double dx = small ? 0.3 + 0.2 * k : 0.2 * (k - 3);
            const double n = std::pow(10.0, logOpt + dx), d = h / (6 * n);
            const double loss = 2 + 0.08 * dx * dx + (small ? 0.06 * dx * dx * dx : 0) + 0.5 / std::log10(h);
            lines << QStringLiteral("%1,%2,%3,%4").arg(g12(n), g12(d), g12(h), g12(loss));
        }
    }
    const QString path = dir.filePath("warmup_isoflop.csv");
    writeLines(path, lines);
    return path;
}

QJsonObject seriesNamed(const QJsonObject& fit, const QString& name) {
    for (const auto& s : fit["series"].toArray())
        if (s.toObject()["name"].toString() == name) return s.toObject();
    return {};
}

// The coefficient and exponent of the N*(H) row of `render --table laws`.
std::pair<double, double> renderedLaw(const QTemporaryDir& dir, const QStringList& args) {
    static int k = 0;
    const QString out = dir.filePath(QStringLiteral("laws%1.csv").arg(++k));
    const auto r = runScalex(QStringList{"render"} + args + QStringList{"--view", "isoflop", "--table", "laws", "--out", out});
    EXPECT_EQ(r.exitCode, 0) << r.err.toStdString();
    QFile f(out);
    EXPECT_TRUE(f.open(QIODevice::ReadOnly));
    for (const QString& line : QString::fromUtf8(f.readAll()).split('\n'))
        if (line.contains("N*(H)")) {
            const QStringList cells = line.split(',');
            return {cells[3].toDouble(), cells[6].toDouble()};
        }
    ADD_FAILURE() << "no N*(H) row";
    return {0, 0};
}

}  // namespace

TEST(Defaults, MergedStudiesAreGroupedByExperimentNotByArchitecture) {
    QTemporaryDir dir;
    const QString merged = writeMerged(dir);
    const auto check = runScalex({"check", merged, "--json"});
    ASSERT_EQ(check.exitCode, 0) << check.err.toStdString();
    const QJsonObject j = check.json();
    EXPECT_EQ(j["series_by"].toArray(), QJsonArray{"experiment"});
    EXPECT_EQ(j["series"].toArray().size(), 5);
    // `check` says how it read each column and why `model` makes no series: it follows the experiment.
    bool modelRead = false;
    for (const auto& c : j["roles"].toArray()) {
        const QJsonObject o = c.toObject();
        if (o["column"].toString() == "model") {
            modelRead = true;
            EXPECT_EQ(o["role"].toString(), "descriptor");
            EXPECT_TRUE(o["evidence"].toString().contains("follows experiment")) << o["evidence"].toString().toStdString();
        }
        if (o["column"].toString() == "experiment") EXPECT_EQ(o["role"].toString(), "condition");
    }
    EXPECT_TRUE(modelRead);
    const auto text = runScalex({"check", merged});
    EXPECT_TRUE(text.out.contains("series (by experiment)")) << text.out.toStdString();
    EXPECT_TRUE(text.out.contains("model: descriptor (one value per series: follows experiment")) << text.out.toStdString();

    // Every budget, every experiment: each law is its own study's.
    const auto fit = runScalex({"fit", "isoflop", "--data", merged, "--json"});
    ASSERT_EQ(fit.exitCode, 0) << fit.err.toStdString();
    const std::pair<const char*, double> expected[] = {{"hoffmann_fig3_digitised", 0.50}, {"hoffmann_fig4_digitised", 0.50},
                                                       {"porian_raw", 0.55}, {"porian_normalised", 0.55}, {"besiroglu_mamba", 0.45}};
    for (const auto& [name, a] : expected) {
        const QJsonObject s = seriesNamed(fit.json(), name);
        ASSERT_FALSE(s.isEmpty()) << name;
        EXPECT_EQ(s["n_budgets"].toInt(), 5) << name;
        EXPECT_NEAR(s["a"].toDouble(), a, 0.01) << name;
    }
}

TEST(Defaults, AColumnThatNamesTheSizeIsNotASeriesAndASweepGivesItsBestRun) {
    QTemporaryDir dir;
    const QString sweep = writeLrSweep(dir);
    const auto check = runScalex({"check", sweep, "--json"});
    ASSERT_EQ(check.exitCode, 0) << check.err.toStdString();
    const QJsonObject j = check.json();
    EXPECT_EQ(j["series"].toArray().size(), 1) << "`model` names the size: one series per size is no series";
    bool sizeRead = false;
    for (const auto& c : j["roles"].toArray())
        if (c.toObject()["column"].toString() == "model")
            sizeRead = c.toObject()["role"].toString() == "descriptor" &&
                       c.toObject()["evidence"].toString().startsWith("one value per model size");
    EXPECT_TRUE(sizeRead);
    // 25 sweeps of three learning rates: the best of each stands for it, the other 50 are listed.
    const QJsonArray leftOut = j["not_best_of_sweep"].toArray();
    ASSERT_EQ(leftOut.size(), 50);
    EXPECT_EQ(j["in_analyses"].toInt(), 25);
    const QString reason = leftOut.first().toObject()["reason"].toString();
    EXPECT_TRUE(reason.startsWith("not the best of its sweep: peak_lr 0.001, loss +0.03")) << reason.toStdString();

    // The law of the best runs is the one that generated them.
    const auto fit = runScalex({"fit", "lnd", "--data", sweep, "--json"});
    ASSERT_EQ(fit.exitCode, 0) << fit.err.toStdString();
    const QJsonObject p = fit.json();
    EXPECT_NEAR(p["alpha"].toDouble(), kAlpha, 0.01);
    EXPECT_NEAR(p["beta"].toDouble(), kBeta, 0.01);
    EXPECT_NEAR(std::exp(p["logE"].toDouble()), kE, 0.01);
    EXPECT_EQ(fit.json()["n_points"].toInt(), 25);

    // --all-sweep-runs takes every run, by check and fit alike.
    EXPECT_EQ(runScalex({"check", sweep, "--all-sweep-runs", "--json"}).json()["in_analyses"].toInt(), 75);
    const auto all = runScalex({"fit", "lnd", "--data", sweep, "--all-sweep-runs", "--json"});
    ASSERT_EQ(all.exitCode, 0) << all.err.toStdString();
    EXPECT_EQ(all.json()["n_points"].toInt(), 75);
}

TEST(Defaults, ABudgetWhoseOptimumIsExtrapolatedIsLeftOutOfTheLaw) {
    QTemporaryDir dir;
    const QString file = writeExtrapolated(dir);
    const auto fit = runScalex({"fit", "isoflop", "--data", file, "--json"});
    ASSERT_EQ(fit.exitCode, 0) << fit.err.toStdString();
    const QJsonObject j = fit.json();
    int leftOut = 0;
    for (const auto& v : j["profiles"].toArray()) {
        const QJsonObject pr = v.toObject();
        const bool small = pr["budget"].toDouble() < 5e18;
        EXPECT_EQ(pr["in_power_law"].toBool(), !small) << pr["budget"].toDouble();
        if (small) {
            ++leftOut;
            EXPECT_TRUE(pr["left_out"].toString().contains("outside the sampled sizes")) << pr["left_out"].toString().toStdString();
        }
    }
    EXPECT_EQ(leftOut, 3);
    EXPECT_EQ(j["n_budgets"].toInt(), 4);
    EXPECT_NEAR(j["a"].toDouble(), 0.5, 1e-6);

    // Taken back, like an outlier run: the law moves.
    const auto kept = runScalex({"fit", "isoflop", "--data", file, "--keep-budget", "1e17", "--keep-budget", "3e17",
                                 "--keep-budget", "1e18", "--json"});
    ASSERT_EQ(kept.exitCode, 0) << kept.err.toStdString();
    EXPECT_EQ(kept.json()["n_budgets"].toInt(), 7);
    EXPECT_GT(std::abs(kept.json()["a"].toDouble() - 0.5), 0.02);
}

TEST(Defaults, RunsOfOneModelSizeGiveNoLossSurface) {
    QTemporaryDir dir;
    QStringList lines{"params,tokens,validation_loss"};
    for (double d : {1e9, 2e9, 4e9, 8e9, 16e9, 32e9, 64e9, 128e9})
        lines << QStringLiteral("1e8,%1,%2").arg(g12(d), g12(kE + kA / std::pow(1e8, kAlpha) + kB / std::pow(d, kBeta)));
    const QString path = dir.filePath("one_size.csv");
    writeLines(path, lines);
    const auto fit = runScalex({"fit", "lnd", "--data", path, "--json"});
    EXPECT_NE(fit.exitCode, 0);
    EXPECT_TRUE(fit.err.contains("1 model size")) << fit.err.toStdString();
    EXPECT_TRUE(fit.err.contains("no law")) << fit.err.toStdString();
    EXPECT_FALSE(fit.out.contains("alpha"));
}

// The study's IsoFLOP sweep at one budget (3e19): its runs trade N for D along one line, and an
// L(N,D) fit through them would print exponents the runs cannot determine.
TEST(Defaults, RunsOfOneBudgetGiveNoLossSurface) {
    SCALEX_REQUIRE_SHARED();
    const auto fit = runScalex({"fit", "lnd", "--data", scalex::test::sharedPath("data/xlstm/isoflop_xlstm_3e19_ctx8192.csv"), "--json"});
    EXPECT_EQ(fit.exitCode, 2);
    EXPECT_TRUE(fit.err.contains("lie on one line in (N, D)")) << fit.err.toStdString();
    EXPECT_TRUE(fit.err.contains("no law")) << fit.err.toStdString();
}

// The window's IsoFLOP law, drawn with no options, is the fit verb's with no options: every budget
// of the study (not the paper's Fig. 4 range), the extrapolated ones left out, by a CSV, a
// converted project and a saved recipe alike.
TEST(OneAnswer, TheIsoFlopLawWithNoOptionsIsTheSameByEveryPath) {
    QTemporaryDir dir;
    const QString file = writeExtrapolated(dir);
    const auto fit = runScalex({"fit", "isoflop", "--data", file, "--json"});
    ASSERT_EQ(fit.exitCode, 0) << fit.err.toStdString();
    const double a = fit.json()["a"].toDouble(), coefficient = fit.json()["A"].toDouble();

    const auto fromCsv = renderedLaw(dir, {"--project", file});
    EXPECT_DOUBLE_EQ(fromCsv.second, a);
    EXPECT_DOUBLE_EQ(fromCsv.first, coefficient);

    const QString project = dir.filePath("p.scalex");
    ASSERT_EQ(runScalex({"convert", file, project}).exitCode, 0);
    const auto fromProject = renderedLaw(dir, {"--project", project});
    EXPECT_DOUBLE_EQ(fromProject.second, a);
    const auto projectFit = runScalex({"fit", "isoflop", "--data", project, "--json"});
    ASSERT_EQ(projectFit.exitCode, 0) << projectFit.err.toStdString();
    EXPECT_DOUBLE_EQ(projectFit.json()["a"].toDouble(), a);

    ASSERT_EQ(runScalex({"render", "--project", project, "--view", "isoflop", "--out", dir.filePath("fig.svg"), "--save-recipe", "laws"})
                  .exitCode,
              0);
    const auto again = runScalex({"render", "--project", project, "--recipe", "laws", "--out", dir.filePath("again.svg")});
    ASSERT_EQ(again.exitCode, 0) << again.err.toStdString();
    QFile svg(dir.filePath("again.svg"));
    ASSERT_TRUE(svg.open(QIODevice::ReadOnly));
    // The law's legend entry prints the exponent to three decimals: 0.500, where the Fig. 4 range
    // (one budget in it) would give no law at all.
    EXPECT_TRUE(QString::fromUtf8(svg.readAll()).contains(QStringLiteral(" %1").arg(a, 0, 'f', 3)));
}

// L(N,D) of a learning-rate sweep with no options: the verb's JSON and the loss-surface view's
// table (from the CSV and from a converted project) give the same parameters to the last digit,
// each fitted to the best run of every sweep.
TEST(OneAnswer, TheLossSurfaceOfASweepIsTheSameByEveryPath) {
    QTemporaryDir dir;
    const QString sweep = writeLrSweep(dir);
    const auto fit = runScalex({"fit", "lnd", "--data", sweep, "--json", "--no-extrapolation"});
    ASSERT_EQ(fit.exitCode, 0) << fit.err.toStdString();
    const QJsonObject j = fit.json();
    const std::pair<const char*, const char*> names[] = {{"log A", "logA"}, {"log B", "logB"}, {"log E", "logE"},
                                                         {"alpha", "alpha"}, {"beta", "beta"}, {"gamma", "gamma"}};
    const QString project = dir.filePath("sweep.scalex");
    ASSERT_EQ(runScalex({"convert", sweep, project}).exitCode, 0);
    for (const QString& input : {sweep, project}) {
        SCOPED_TRACE(input.toStdString());
        const QString out = dir.filePath("fit.csv");
        QFile::remove(out);
        const auto r = runScalex({"render", "--project", input, "--view", "surface", "--table", "fit", "--out", out});
        ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
        QFile f(out);
        ASSERT_TRUE(f.open(QIODevice::ReadOnly));
        int matched = 0;
        for (const QString& line : QString::fromUtf8(f.readAll()).split('\n'))
            for (const auto& [label, key] : names)
                if (line.section(',', 1, 1) == QLatin1String(label)) {
                    EXPECT_EQ(line.section(',', 2, 2).toInt(), 25) << "the best run of each sweep";
                    EXPECT_DOUBLE_EQ(line.section(',', 3, 3).toDouble(), j[key].toDouble()) << label;
                    ++matched;
                }
        EXPECT_EQ(matched, 6);
    }
}

// One vocabulary: the settings' names are the flags' (--huber-delta, --gamma free|fixed_1), the old
// spellings keep working, and every verb takes its input with --data.
TEST(OneVocabulary, SettingsNamesAreTheFlagsAndOldSpellingsStillWork) {
    QTemporaryDir dir;
    const QString sweep = writeLrSweep(dir);
    const auto now = runScalex({"fit", "lnd", "--data", sweep, "--huber-delta", "1e-3", "--gamma", "fixed_1", "--grid", "paper",
                                "--no-extrapolation", "--json"});
    const auto before = runScalex({"fit", "lnd", "--data", sweep, "--huber", "1e-3", "--gamma", "1", "--no-extrapolation", "--json"});
    ASSERT_EQ(now.exitCode, 0) << now.err.toStdString();
    ASSERT_EQ(before.exitCode, 0) << before.err.toStdString();
    EXPECT_FALSE(now.json()["fit_gamma"].toBool());
    EXPECT_DOUBLE_EQ(now.json()["objective"].toDouble(), before.json()["objective"].toDouble());
    const auto bad = runScalex({"fit", "lnd", "--data", sweep, "--gamma", "2"});
    EXPECT_EQ(bad.exitCode, 2);
    EXPECT_TRUE(bad.err.contains("--gamma expects free or fixed_1")) << bad.err.toStdString();

    const QString out = dir.filePath("laws.csv");
    const auto render = runScalex({"render", "--data", writeExtrapolated(dir), "--view", "isoflop", "--table", "laws", "--out", out});
    EXPECT_EQ(render.exitCode, 0) << render.err.toStdString();
    EXPECT_TRUE(QFile::exists(out));
}

// The public studies as published, with no options: the IsoFLOP law and L(N,D) of Epoch's
// Chinchilla points are the same numbers by the verbs and by the views' tables, and the Gemstones
// checkpoints (one token count at their last step) give no L(N,D) law by either, for the same reason.
TEST(OneAnswer, ThePublicStudiesGiveOneAnswerByEveryPath) {
    SCALEX_REQUIRE_SHARED();
    QTemporaryDir dir;
    const QString epoch = scalex::test::sharedPath("data/public/epoch-chinchilla/svg_extracted_data.csv");
    const auto iso = runScalex({"fit", "isoflop", "--data", epoch, "--json"});
    ASSERT_EQ(iso.exitCode, 0) << iso.err.toStdString();
    const auto law = renderedLaw(dir, {"--data", epoch});
    EXPECT_DOUBLE_EQ(law.second, iso.json()["a"].toDouble());
    EXPECT_DOUBLE_EQ(law.first, iso.json()["A"].toDouble());

    const auto lnd = runScalex({"fit", "lnd", "--data", epoch, "--json", "--no-extrapolation"});
    ASSERT_EQ(lnd.exitCode, 0) << lnd.err.toStdString();
    const QString out = dir.filePath("surface.csv");
    const auto table = runScalex({"render", "--data", epoch, "--view", "surface", "--table", "fit", "--out", out});
    ASSERT_EQ(table.exitCode, 0) << table.err.toStdString();
    const QMap<QString, double> fitted = scalex::test::surfaceFitTable(out);
    for (const char* key : {"alpha", "beta", "gamma"}) {
        ASSERT_TRUE(fitted.contains(QLatin1String(key))) << key;
        EXPECT_DOUBLE_EQ(fitted.value(QLatin1String(key)), lnd.json()[key].toDouble()) << key;
    }

    const QString gemstones = scalex::test::sharedPath("data/public/gemstones/fineweb_edu_losses_combined.jsonl");
    const auto none = runScalex({"fit", "lnd", "--data", gemstones, "--json"});
    const auto noneDrawn = runScalex({"render", "--data", gemstones, "--view", "surface", "--table", "fit", "--out", dir.filePath("g.csv")});
    EXPECT_NE(none.exitCode, 0);
    EXPECT_NE(noneDrawn.exitCode, 0);
    const QString why = "the runs have 1 token count; B and beta of L(N,D) need three or more: no law";
    EXPECT_TRUE(none.err.contains(why)) << none.err.toStdString();
    EXPECT_TRUE(noneDrawn.err.contains(why)) << noneDrawn.err.toStdString();
    EXPECT_FALSE(QFile::exists(dir.filePath("g.csv")));
}

// The Compute-optimal view on studies whose runs give IsoFLOP laws but no loss surface (profiles
// that no L(N,D) of the paper's form fits): its default method answers by the laws, for each
// experiment, rather than with nothing.
TEST(Defaults, TheComputeOptimalViewAnswersByTheLawsWhereNoSurfaceCan) {
    QTemporaryDir dir;
    const QString merged = writeMerged(dir);
    const QString out = dir.filePath("query.csv");
    const auto r = runScalex({"render", "--data", merged, "--view", "optimal", "--table", "query", "--out", out});
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    QFile f(out);
    ASSERT_TRUE(f.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(f.readAll()).trimmed().split('\n');
    ASSERT_EQ(lines.size(), 6) << "a header and the five experiments";
    const std::pair<const char*, double> expected[] = {{"hoffmann_fig3_digitised", 0.50}, {"porian_raw", 0.55}, {"besiroglu_mamba", 0.45}};
    for (const auto& [name, a] : expected)
        for (const QString& line : lines)
            if (line.startsWith(QLatin1String(name) + ",")) {
                // N* = 0.1·H^a at H = 1e22, the law the runs were drawn from.
                EXPECT_NEAR(line.section(',', 1, 1).toDouble() / (0.1 * std::pow(1e22, a)), 1.0, 0.02) << name;
            }
}

namespace {

// A CSV written by `render --table` as rows of column → cell.
std::vector<QMap<QString, QString>> readTable(const QString& path) {
    std::vector<QMap<QString, QString>> rows;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly | QIODevice::Text)) {
        ADD_FAILURE() << "cannot open " << path.toStdString();
        return rows;
    }
    const QStringList header = QString::fromUtf8(f.readLine()).trimmed().split(',');
    while (!f.atEnd()) {
        const QStringList cells = QString::fromUtf8(f.readLine()).trimmed().split(',');
        if (cells.size() != header.size()) continue;
        QMap<QString, QString> row;
        for (qsizetype k = 0; k < header.size(); ++k) row[header[k]] = cells[k];
        rows.push_back(row);
    }
    return rows;
}

std::vector<QMap<QString, QString>> renderedTable(const QTemporaryDir& dir, const QStringList& args) {
    static int k = 0;
    const QString out = dir.filePath(QStringLiteral("table%1.csv").arg(++k));
    const auto r = runScalex(QStringList{"render"} + args + QStringList{"--out", out});
    EXPECT_EQ(r.exitCode, 0) << r.err.toStdString();
    return readTable(out);
}

QJsonObject seriesLabelled(const QJsonObject& fit, const QString& label) {
    for (const auto& s : fit["series"].toArray())
        if (s.toObject()["label"].toString() == label) return s.toObject();
    ADD_FAILURE() << "no series labelled " << label.toStdString();
    return {};
}

// Every row of the over-training view's slopes table is the group of `fit slopes` at the same
// series, context and ratio, to the last digit.
void expectSlopesTableIsTheFit(const std::vector<QMap<QString, QString>>& table, const QJsonObject& fit, int context) {
    ASSERT_FALSE(table.empty());
    for (const auto& row : table) {
        const QJsonObject series = seriesLabelled(fit, row["model"] + ", T = " + QString::number(context));
        bool found = false;
        for (const auto& g : series["groups"].toArray()) {
            const QJsonObject group = g.toObject();
            if (group["ratio"].toDouble() != row["tokens_per_param"].toDouble()) continue;
            found = true;
            EXPECT_EQ(group["n_runs"].toInt(), row["runs"].toInt()) << row["model"].toStdString();
            EXPECT_EQ(group["eta"].toDouble(), row["eta"].toDouble()) << row["model"].toStdString() << " M = " << row["tokens_per_param"].toStdString();
            EXPECT_EQ(group["lambda"].toDouble(), row["lambda"].toDouble());
            EXPECT_EQ(group["r2"].toDouble(), row["r2"].toDouble());
        }
        EXPECT_TRUE(found) << row["model"].toStdString() << " M = " << row["tokens_per_param"].toStdString();
    }
}

// The Pareto view's frontier table lists, for the view's context, exactly the frontier runs of
// `fit pareto` for that context, with the same compute and loss.
void expectFrontierTableIsTheFit(const std::vector<QMap<QString, QString>>& table, const QJsonObject& fit, int context) {
    QMap<QString, std::pair<double, double>> fromFit;
    for (const auto& s : fit["series"].toArray()) {
        if (s.toObject()["context"].toInt() != context) continue;
        for (const auto& p : s.toObject()["frontier"].toArray())
            fromFit[p.toObject()["run"].toString()] = {p.toObject()["flops"].toDouble(), p.toObject()["loss"].toDouble()};
    }
    ASSERT_FALSE(fromFit.isEmpty());
    EXPECT_EQ(static_cast<qsizetype>(table.size()), fromFit.size());
    for (const auto& row : table) {
        ASSERT_TRUE(fromFit.contains(row["run_id"])) << row["run_id"].toStdString() << " is on the view's frontier only";
        EXPECT_EQ(fromFit[row["run_id"]].first, row["flops"].toDouble()) << row["run_id"].toStdString();
        EXPECT_EQ(fromFit[row["run_id"]].second, row["loss"].toDouble()) << row["run_id"].toStdString();
    }
}

}  // namespace

// Over-training slopes and Pareto frontiers of the built-in example: `fit … --json` and the views'
// tables, from the example and from a project converted from its run tables, with no options and
// at another context length, are the same numbers to the last digit.
TEST(OneAnswer, SlopesAndParetoFrontsAreTheSameByEveryPath) {
    QTemporaryDir dir;
    const auto slopes = runScalex({"fit", "slopes", "--example", "--json"});
    ASSERT_EQ(slopes.exitCode, 0) << slopes.err.toStdString();
    const auto pareto = runScalex({"fit", "pareto", "--example", "--json"});
    ASSERT_EQ(pareto.exitCode, 0) << pareto.err.toStdString();
    // With no options the over-training view shows the context that has the most ratios (8192).
    expectSlopesTableIsTheFit(renderedTable(dir, {"--example", "--view", "overtraining", "--table", "slopes"}), slopes.json(), 8192);
    expectSlopesTableIsTheFit(renderedTable(dir, {"--example", "--view", "overtraining", "--table", "slopes", "--set", "context=2048"}),
                              slopes.json(), 2048);
    expectFrontierTableIsTheFit(renderedTable(dir, {"--example", "--view", "pareto", "--table", "frontier"}), pareto.json(), 8192);
    expectFrontierTableIsTheFit(renderedTable(dir, {"--example", "--view", "pareto", "--table", "frontier", "--set", "context=16384"}),
                                pareto.json(), 16384);

    const QString project = dir.filePath("example.scalex");
    ASSERT_EQ(runScalex({"convert", scalex::test::sourcePath("datasets/example/generated-isoflop.csv"),
                         scalex::test::sourcePath("datasets/example/generated-tokenparam-ctx8192.csv"), project})
                  .exitCode,
              0);
    const auto projectSlopes = runScalex({"fit", "slopes", "--data", project, "--json"});
    ASSERT_EQ(projectSlopes.exitCode, 0) << projectSlopes.err.toStdString();
    EXPECT_EQ(projectSlopes.json()["series"], slopes.json()["series"]);
    expectSlopesTableIsTheFit(renderedTable(dir, {"--project", project, "--view", "overtraining", "--table", "slopes"}), slopes.json(), 8192);
    expectFrontierTableIsTheFit(renderedTable(dir, {"--project", project, "--view", "pareto", "--table", "frontier"}), pareto.json(), 8192);
}

namespace {

// Every row of a rendered table is the record of the verb's JSON at the same key column, every
// number to the last digit (the CSV writes doubles in their shortest exact form; an empty cell is
// the JSON's null).
void expectTableIsTheRecords(const std::vector<QMap<QString, QString>>& table, const QJsonArray& records, const QStringList& keys) {
    ASSERT_FALSE(table.empty());
    ASSERT_EQ(static_cast<qsizetype>(table.size()), records.size());
    for (std::size_t i = 0; i < table.size(); ++i) {
        const QMap<QString, QString>& row = table[i];
        const QJsonObject record = records[static_cast<qsizetype>(i)].toObject();
        for (const QString& key : keys) EXPECT_EQ(row[key], record[key].toVariant().toString()) << key.toStdString() << " of row " << i;
        for (auto it = row.begin(); it != row.end(); ++it) {
            if (keys.contains(it.key())) continue;
            ASSERT_TRUE(record.contains(it.key())) << it.key().toStdString() << " is in the table only";
            const QJsonValue v = record[it.key()];
            if (v.isNull()) EXPECT_TRUE(it.value().isEmpty()) << it.key().toStdString() << " of row " << i;
            else EXPECT_EQ(it.value().toDouble(), v.toDouble()) << it.key().toStdString() << " of row " << i;
        }
    }
}

// `fit runtime --json` as records of the inference view's fits table (the columns the table has).
QJsonArray runtimeRecords(const QJsonObject& fit) {
    QJsonArray out;
    for (const auto& f : fit["fits"].toArray()) {
        QJsonObject o = f.toObject(), record;
        for (const char* key : {"model", "family", "stage", "alpha_eff", "beta_eff", "eps", "batch_term", "rmse", "r2", "n_points"})
            record[key] = o[key];
        out.append(record);
    }
    return out;
}

}  // namespace

// The context-length analysis of a quarter of the example's Token/Param runs (every fourth row, so
// that each family's L(N,D) fits quickly): `fit context --json`, the context view's optima table,
// the same from a converted project and through a recipe saved in it, give the same numbers to the
// last digit, with no options and at another budget.
TEST(OneAnswer, ContextOptimaAreTheSameByEveryPath) {
    QTemporaryDir dir;
    QFile example(scalex::test::sourcePath("datasets/example/generated-tokenparam-ctx8192.csv"));
    ASSERT_TRUE(example.open(QIODevice::ReadOnly | QIODevice::Text));
    const QString runs = dir.filePath("quarter.csv");
    QFile quarter(runs);
    ASSERT_TRUE(quarter.open(QIODevice::WriteOnly | QIODevice::Text));
    for (int line = 1; !example.atEnd(); ++line) {
        const QByteArray row = example.readLine();
        if (line == 1 || line % 4 == 0) quarter.write(row);
    }
    quarter.close();
    const QString project = dir.filePath("quarter.scalex");
    ASSERT_EQ(runScalex({"convert", runs, project}).exitCode, 0);
    const std::pair<QStringList, QStringList> options[] = {{{}, {}}, {{"--budget", "1e21"}, {"--set", "budget=1e21"}}};
    QJsonArray byDefault;
    for (const auto& [flags, controls] : options) {
        SCOPED_TRACE(flags.join(' ').toStdString());
        const auto fit = runScalex(QStringList{"fit", "context", "--data", runs, "--json"} + flags);
        ASSERT_EQ(fit.exitCode, 0) << fit.err.toStdString();
        const QJsonArray optima = fit.json()["optima"].toArray();
        ASSERT_EQ(optima.size(), 33) << "512 to 131072 tokens, four contexts per octave";
        EXPECT_NE(optima, byDefault) << "the budget changes the optima";
        byDefault = optima;
        expectTableIsTheRecords(renderedTable(dir, QStringList{"--data", runs, "--view", "context", "--table", "optima"} + controls), optima, {"context"});
        expectTableIsTheRecords(renderedTable(dir, QStringList{"--project", project, "--view", "context", "--table", "optima"} + controls), optima,
                                {"context"});
        const QString recipe = flags.isEmpty() ? "plain" : "budget";
        ASSERT_EQ(runScalex(QStringList{"render", "--project", project, "--view", "context", "--out", dir.filePath(recipe + ".svg"), "--save-recipe",
                                        recipe} + controls)
                      .exitCode,
                  0);
        expectTableIsTheRecords(renderedTable(dir, {"--project", project, "--recipe", recipe, "--table", "optima"}), optima, {"context"});
    }
}

// The runtime-model fit of the study's inference measurements: `fit runtime --json`, the inference
// view's fits table, the same from a converted project and through a recipe saved in it, give the
// same numbers to the last digit, with the default residuals and with squared ones.
TEST(OneAnswer, RuntimeFitsAreTheSameByEveryPath) {
    SCALEX_REQUIRE_SHARED();
    QTemporaryDir dir;
    const QString measurements = scalex::test::sharedPath("data/xlstm/inference_results.csv");
    const QString project = dir.filePath("inference.scalex");
    ASSERT_EQ(runScalex({"convert", measurements, project}).exitCode, 0);
    const std::pair<QStringList, QStringList> options[] = {{{}, {}}, {{"--loss", "l2"}, {"--set", "loss=l2"}}};
    QJsonArray byDefault;
    for (const auto& [flags, controls] : options) {
        SCOPED_TRACE(flags.join(' ').toStdString());
        const auto fit = runScalex(QStringList{"fit", "runtime", "--data", measurements, "--json"} + flags);
        ASSERT_EQ(fit.exitCode, 0) << fit.err.toStdString();
        const QJsonArray records = runtimeRecords(fit.json());
        ASSERT_EQ(records.size(), 36) << "prefill and decode of the 18 measured models";
        EXPECT_NE(records, byDefault) << "the residuals change the fits";
        byDefault = records;
        const QStringList keys{"model", "family", "stage"};
        expectTableIsTheRecords(renderedTable(dir, QStringList{"--data", measurements, "--view", "inference", "--table", "fits"} + controls), records, keys);
        expectTableIsTheRecords(renderedTable(dir, QStringList{"--project", project, "--view", "inference", "--table", "fits"} + controls), records, keys);
        const QString recipe = flags.isEmpty() ? "plain" : "squared";
        ASSERT_EQ(runScalex(QStringList{"render", "--project", project, "--view", "inference", "--out", dir.filePath(recipe + ".svg"),
                                        "--save-recipe", recipe} + controls)
                      .exitCode,
                  0);
        expectTableIsTheRecords(renderedTable(dir, {"--project", project, "--recipe", recipe, "--table", "fits"}), records, keys);
    }
}
