// Tracker JSON exports (core/data/TrackerJson): a run of lr-schedules/ loads with its config as
// columns and its history as a curve (the README's counts and the file's final loss), a resumed
// run's repeated steps keep the later entry, a cooldown branch joins its constant-rate base run
// below its first logged step, and each unusable input gives one error naming the file and key.
#include <gtest/gtest.h>

#include <QDir>
#include <QFile>
#include <QString>
#include <QTemporaryDir>
#include <cmath>
#include <set>

#include "core/data/DataFileKind.h"
#include "core/data/Project.h"
#include "core/data/RunTableIo.h"
#include "core/data/TrackerJson.h"
#include "tests/support/TestData.h"

using namespace scalex::data;
using scalex::test::sharedPath;

namespace {

const char* kStem = "_slimpajama_llama_norm_nlayers12_nhead12_lr";

std::string lrFile(const std::string& prefix, const std::string& lr, const std::string& rest) {
    return sharedPath(QString::fromStdString("data/public/lr-schedules/" + prefix + kStem + lr + "_sched_" + rest +
                                             "_bs50x2_ws2_seed0_data_seed1337.json"))
        .toStdString();
}

// The runs of `files` (one that does not load fails the test and is left out).
std::vector<TrackerRun> loadRuns(const std::vector<std::string>& files) {
    std::vector<TrackerRun> runs;
    for (const auto& f : files) {
        auto r = loadTrackerRun(f);
        EXPECT_TRUE(r.ok()) << (r.ok() ? std::string() : r.error().toString());
        if (r.ok()) runs.push_back(std::move(*r));
    }
    return runs;
}

LoadError parseError(const std::string& json) {
    auto r = parseTrackerRun(QByteArray::fromStdString(json), "run.json");
    EXPECT_FALSE(r.ok()) << json;
    return r.ok() ? LoadError{} : r.error();
}

}  // namespace

TEST(TrackerJson, CooldownRunLoadsWithConfigAndCurve) {
    SCALEX_REQUIRE_SHARED();
    const auto path = lrFile("ann124-0.2", "0.001", "wsd_warmup300_decay_linear_0.2_iter25000");
    auto run = loadTrackerRun(path);
    ASSERT_TRUE(run.ok()) << run.error().toString();
    EXPECT_EQ(run->configNumber("lr"), 0.001);
    EXPECT_EQ(run->configNumber("iterations"), 25000);
    EXPECT_EQ(run->configNumber("wsd_fract_decay"), 0.2);
    ASSERT_NE(run->configValue("decay_type"), nullptr);
    EXPECT_EQ(*run->configValue("decay_type"), "linear");
    ASSERT_NE(run->configValue("full_eval_at"), nullptr);
    EXPECT_EQ(*run->configValue("full_eval_at"), "[]");  // a list, kept as its JSON text
    EXPECT_EQ(run->configValue("no_such_key"), nullptr);
    // README: batch 50 × 2 accumulation × 2 GPUs × 512 tokens = 102,400 tokens a step.
    EXPECT_EQ(run->tokensPerStep, 102400);
    // Train every 50 steps from 20,050 to 25,000 (100) and validation every 200 from 20,000 to
    // 24,800 (25, all but 20,000 at a train step): 101 steps.
    EXPECT_EQ(run->curve.points.size(), 101u);
    std::size_t val = 0;
    for (const auto& p : run->curve.points) val += std::isfinite(p.valLoss);
    EXPECT_EQ(val, 25u);
    EXPECT_EQ(run->firstLoggedStep(), 20000);
    const auto& last = run->curve.points.back();
    EXPECT_EQ(last.step, 25000);
    EXPECT_TRUE(std::isnan(last.valLoss));
    EXPECT_DOUBLE_EQ(last.tokens, 25000.0 * 102400);
    EXPECT_EQ(last.lr, 0);
    EXPECT_DOUBLE_EQ(run->curve.finalValLoss(), 3.0028281211853027);  // val_loss at 24,800
    // history.final-val, kept apart (the full validation set reads higher than the periodic one).
    EXPECT_DOUBLE_EQ(run->finalValLoss, 3.037792682647705);
    EXPECT_EQ(run->finalValStep, 25000);
}

TEST(TrackerJson, ResumedRunKeepsOneEntryPerStep) {
    SCALEX_REQUIRE_SHARED();
    // README: one constant-rate run "logs from step 14,050 only"; its streams hold several resumed
    // segments out of order.
    auto run = loadTrackerRun(lrFile("stable-124m", "0.002", "wsd_warmup300_decay_linear_0.0_iter50000"));
    ASSERT_TRUE(run.ok()) << run.error().toString();
    EXPECT_GT(run->duplicateSteps, 0);
    std::set<double> steps;
    double previous = -1;
    for (const auto& p : run->curve.points) {
        EXPECT_GT(p.step, previous);
        previous = p.step;
        steps.insert(p.step);
    }
    EXPECT_EQ(steps.size(), run->curve.points.size());
    EXPECT_DOUBLE_EQ(run->finalValLoss, 3.1938610076904297);
    EXPECT_EQ(run->curve.points.back().step, 50000);
}

TEST(TrackerJson, CooldownBranchJoinsItsConstantRateRun) {
    SCALEX_REQUIRE_SHARED();
    std::vector<TrackerRun> runs = loadRuns({lrFile("ann124-0.4", "0.0005", "wsd_warmup300_decay_linear_0.4_iter25000"),
                                             lrFile("stable-124m", "0.001", "wsd_warmup300_decay_linear_0.0_iter50000"),
                                             lrFile("stable-124m", "0.0005", "wsd_warmup300_decay_linear_0.0_iter50000")});
    ASSERT_EQ(runs.size(), 3u);
    const auto baseSize = runs[2].curve.points.size();
    EXPECT_TRUE(joinCooldownRuns(runs).empty());
    const auto& branch = runs[0];
    EXPECT_EQ(branch.joinedTo, runs[2].name);  // the same peak rate, not the other base
    // The branch resumed from the base's checkpoint 10000 (config resume_from ".../ckpts/10000") and
    // logs from there; its 40 % cooldown starts at 15,000.
    EXPECT_EQ(branch.joinStep, 10000);
    EXPECT_TRUE(QString::fromStdString(*branch.configValue("resume_from")).endsWith("ckpts/10000"));
    EXPECT_EQ(branch.curve.points.front().step, 0);
    EXPECT_TRUE(runs[1].joinedTo.empty());
    EXPECT_EQ(runs[2].curve.points.size(), baseSize);  // the base is left as it was
    // Below the join, the base's points; from it on, the branch's own.
    std::size_t below = 0;
    for (const auto& p : runs[2].curve.points) below += p.step < 10000;
    std::size_t branchOwn = 0;
    auto alone = loadTrackerRun(lrFile("ann124-0.4", "0.0005", "wsd_warmup300_decay_linear_0.4_iter25000"));
    for (const auto& p : alone->curve.points) branchOwn += p.step >= 10000;
    EXPECT_EQ(branch.curve.points.size(), below + branchOwn);
    // Without its base the branch is named as not joined.
    std::vector<TrackerRun> lone{*alone};
    const auto unjoined = joinCooldownRuns(lone);
    ASSERT_EQ(unjoined.size(), 1u);
    EXPECT_NE(unjoined[0].find("logs from step 10000"), std::string::npos) << unjoined[0];
    EXPECT_NE(unjoined[0].find("lr 5e-04"), std::string::npos) << unjoined[0];
}

TEST(TrackerJson, ErrorsNameFileAndKey) {
    auto e = parseError("{\"config\": {},\n \"history\": [1, 2,]}");
    EXPECT_EQ(e.file, "run.json");
    EXPECT_EQ(e.line, 2);
    EXPECT_NE(e.message.find("not valid JSON"), std::string::npos);
    EXPECT_EQ(parseError("[1, 2]").message, "expected a JSON object with 'config' and 'history'");
    EXPECT_EQ(parseError("{\"config\": {}}").column, "history");
    EXPECT_EQ(parseError("{\"config\": 3, \"history\": {}}").column, "config");
    EXPECT_EQ(parseError("{\"config\": {}, \"history\": {\"val\": 1}}").column, "history.val");
    e = parseError("{\"config\": {}, \"history\": {\"val\": {\"iter\": [0, 200], \"val_loss\": [3.1]}}}");
    EXPECT_EQ(e.column, "history.val.val_loss");
    EXPECT_EQ(e.message, "1 values for 2 steps in 'history.val.iter'");
    e = parseError("{\"config\": {}, \"history\": {\"train\": {\"iter\": [0, \"x\"], \"train_loss\": [3.1, 3.0]}}}");
    EXPECT_EQ(e.column, "history.train.iter");
    EXPECT_EQ(e.message, "entry 1: expected a step >= 0, got x");
    EXPECT_EQ(parseError("{\"config\": {}, \"history\": {\"train\": {\"train_loss\": [3.1]}}}").column, "history.train.iter");
    EXPECT_EQ(parseError("{\"config\": {}, \"history\": {\"val\": {\"iter\": [1], \"val_loss\": [null]}}}").column, "history");
    EXPECT_EQ(parseError("{\"config\": {}, \"history\": {\"val\": {\"iter\": [-1], \"val_loss\": [2]}}}").column, "history.val.iter");
    // A file that cannot be opened names itself.
    const auto missing = loadTrackerRun("/nonexistent/run.json");
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().file, "/nonexistent/run.json");
}

TEST(TrackerJson, NullValuesAreNotLoggedAndScalarsBecomeText) {
    auto r = parseTrackerRun(R"({"name": "r1", "config": {"lr": 0.001, "scheduler": "wsd", "compile": true, "list": [1, 2], "none": null},
        "history": {"val": {"iter": [0, 200, 400], "val_loss": [3.5, null, 3.2]}}})",
                             "r1.json");
    ASSERT_TRUE(r.ok()) << r.error().toString();
    EXPECT_EQ(r->name, "r1");
    EXPECT_EQ(*r->configValue("compile"), "true");
    EXPECT_EQ(*r->configValue("list"), "[1,2]");
    EXPECT_EQ(*r->configValue("none"), "");
    EXPECT_TRUE(std::isnan(r->configNumber("scheduler")));
    ASSERT_EQ(r->curve.points.size(), 3u);
    EXPECT_TRUE(std::isnan(r->curve.points[1].valLoss));
    EXPECT_TRUE(std::isnan(r->curve.points[1].tokens));  // no batch settings: no token count
    EXPECT_TRUE(looksLikeTrackerJson("{\"config\": {}, \"history\": {}}"));
    EXPECT_FALSE(looksLikeTrackerJson("run_id,step\n"));
}

TEST(TrackerJson, LoadsAsAStudysLossCurves) {
    SCALEX_REQUIRE_SHARED();
    const auto path = QString::fromStdString(lrFile("ann124-0.2", "0.001", "wsd_warmup300_decay_linear_0.2_iter25000"));
    EXPECT_EQ(dataFileKind(path), DataFileKind::LossCurves);
    auto set = loadProjectCurves(path, "ann");
    ASSERT_TRUE(set.ok()) << set.error().toString();
    ASSERT_EQ(set->curves.curves.size(), 1u);
    const auto& curve = set->curves.curves.front();
    auto run = loadTrackerRun(path.toStdString());
    EXPECT_EQ(curve.runId, run->name);
    ASSERT_EQ(curve.points.size(), run->curve.points.size());
    for (std::size_t i = 0; i < curve.points.size(); ++i) {  // the CSV the study keeps reads back the same
        const auto &a = curve.points[i], &b = run->curve.points[i];
        EXPECT_EQ(a.step, b.step);
        for (auto [x, y] : {std::pair{a.valLoss, b.valLoss}, {a.trainLoss, b.trainLoss}, {a.lr, b.lr}, {a.tokens, b.tokens}})
            EXPECT_TRUE(x == y || (std::isnan(x) && std::isnan(y))) << a.step;
    }
    // A JSON run table stays a run table.
    QTemporaryDir dir;
    const QString table = dir.filePath("runs.json");
    QFile f(table);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write("[{\"N\": 1e8, \"D\": 2e9, \"loss\": 3.1}]");
    f.close();
    EXPECT_EQ(dataFileKind(table), DataFileKind::RunTable);
}

TEST(TrackerJson, ConfigKeysBecomeColumnsOfTheRunsTable) {
    SCALEX_REQUIRE_SHARED();
    const std::vector<TrackerRun> runs = loadRuns({lrFile("stable-124m", "0.001", "wsd_warmup300_decay_linear_0.0_iter50000"),
                                                   lrFile("cos-10-124m", "0.001", "cos_warmup300_decay_sqrt_0.0_iter25000"),
                                                   lrFile("ann124-0.2", "0.001", "wsd_warmup300_decay_sqrt_0.2_iter25000")});
    ASSERT_EQ(runs.size(), 3u);
    auto table = parseRunTable(trackerRunsCsv(runs), "tracker runs");
    ASSERT_TRUE(table.ok()) << table.error().toString();
    ASSERT_EQ(table->runs.size(), 3u);
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const scalex::data::Run& row = table->runs[i];
        EXPECT_EQ(row.raw.value("run_id"), runs[i].name);
        // Every scalar config key is a column with the run's own value.
        for (const auto& [key, value] : runs[i].config) EXPECT_EQ(row.raw.value(key), value) << key;
        // The last logged validation loss and step.
        double val = NAN, step = NAN;
        for (const auto& p : runs[i].curve.points) {
            step = p.step;
            if (std::isfinite(p.valLoss)) val = p.valLoss;
        }
        EXPECT_EQ(std::stod(*row.raw.value("val_loss")), val);
        EXPECT_EQ(std::stod(*row.raw.value("step")), step);
    }
    // The settings that set the runs apart, as the files say them.
    EXPECT_EQ(table->runs[0].raw.value("scheduler"), "wsd");
    EXPECT_EQ(table->runs[1].raw.value("scheduler"), "cos");
    EXPECT_EQ(table->runs[2].raw.value("wsd_fract_decay"), "0.2");
    EXPECT_EQ(table->runs[2].raw.value("decay_type"), "sqrt");
    EXPECT_EQ(table->runs[2].raw.value("lr"), "0.001");
    EXPECT_EQ(table->runs[0].raw.value("iterations"), "50000");
}
