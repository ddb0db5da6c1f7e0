// The law analysis (core/analysis/LawAnalysis): a law definition's JSON round trip (projects and
// recipes save laws), the check a view shows under the formula field, and fitLawAnalysis on a
// study's runs: scope conditions, groups, the split and the intervals of held-out predictions.
#include <gtest/gtest.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <cmath>

#include "core/analysis/LawAnalysis.h"
#include "core/data/RunTableIo.h"
#include "core/fit/LawLibrary.h"

using namespace scalex;
using namespace scalex::analysis;

namespace {

// L = 1.8 + 400/N^0.34 + 2000/D^0.37 over a grid of N and D, two labs with different E, and a
// column `split` naming the largest models "test"; loss times (1 + 0.002·s), s = ±1 alternating.
data::RunTable generatedTable() {
    QByteArray csv = "run_id,lab,split,params,tokens,loss\n";
    int id = 0;
    for (const char* lab : {"a", "b"})
        for (double n : {2e7, 5e7, 1e8, 3e8, 1e9, 3e9})
            for (double ratio : {5.0, 20.0, 80.0, 320.0}) {
                const double d = ratio * n;
                const double e = lab[0] == 'a' ? 1.8 : 2.1;
                const double loss = (e + 400 / std::pow(n, 0.34) + 2000 / std::pow(d, 0.37)) * (1 + 0.002 * (id % 2 ? 1 : -1));
                csv += QStringLiteral("r%1,%2,%3,%4,%5,%6\n")
                           .arg(id++)
                           .arg(lab)
                           .arg(n >= 3e9 ? "test" : "train")
                           .arg(n, 0, 'g', 12)
                           .arg(d, 0, 'g', 12)
                           .arg(loss, 0, 'g', 12)
                           .toUtf8();
            }
    auto table = data::parseRunTable(csv, "generated.csv");
    EXPECT_TRUE(table) << (table ? "" : table.error().toString());
    return *table;
}

fit::LawDefinition chinchilla() {
    fit::LawDefinition law;
    law.formula = "L = E + A/N^alpha + B/D^beta";
    law.parameters = {{"E", 0, 10}, {"A", 0, 1e5}, {"B", 0, 1e5}, {"alpha", 0, 1}, {"beta", 0, 1, 0.3}};
    return law;
}

std::vector<RowCondition> conditions(std::initializer_list<const char*> texts) {
    std::vector<RowCondition> out;
    for (const char* t : texts) out.push_back(*parseCondition(t));
    return out;
}

}  // namespace

TEST(LawJson, EveryShippedLawRoundTrips) {
    for (const auto& law : fit::shippedLaws()) {
        const QJsonObject o = lawToJson(law);
        // Through text, as a project file holds it.
        const auto back = lawFromJson(QJsonDocument::fromJson(QJsonDocument(o).toJson()).object());
        ASSERT_TRUE(back) << law.name << ": " << back.error().toString();
        EXPECT_EQ(back->name, law.name);
        EXPECT_EQ(back->formula, law.formula);
        EXPECT_EQ(back->space, law.space);
        EXPECT_EQ(back->loss, law.loss);
        EXPECT_EQ(back->huberDelta, law.huberDelta);
        EXPECT_EQ(back->citation, law.citation);
        ASSERT_EQ(back->parameters.size(), law.parameters.size());
        for (std::size_t k = 0; k < law.parameters.size(); ++k) {
            EXPECT_EQ(back->parameters[k].name, law.parameters[k].name);
            EXPECT_EQ(back->parameters[k].lower, law.parameters[k].lower);
            EXPECT_EQ(back->parameters[k].upper, law.parameters[k].upper);
            EXPECT_EQ(back->parameters[k].start, law.parameters[k].start);
        }
        EXPECT_EQ(lawToJson(*back), o);
    }
}

TEST(LawJson, AWrongKeyIsNamed) {
    EXPECT_EQ(lawFromJson(QJsonObject{}).error().column, "formula");
    QJsonObject o = lawToJson(chinchilla());
    o["space"] = "cubic";
    EXPECT_EQ(lawFromJson(o).error().column, "space");
    o = lawToJson(chinchilla());
    o["parameters"] = QJsonArray{QJsonObject{{"name", "E"}, {"lower", "zero"}}};
    const auto bad = lawFromJson(o);
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("lower is not a number"), std::string::npos) << bad.error().message;
    // Missing bounds load, and the check names the parameter.
    o["parameters"] = QJsonArray{QJsonObject{{"name", "E"}}};
    o["formula"] = "L = E";
    const auto noBounds = lawFromJson(o);
    ASSERT_TRUE(noBounds);
    EXPECT_EQ(checkLaw(generatedTable(), AnalysisSettings{}, *noBounds), "parameter 'E' has no bounds (give NAME=LO:HI)");
}

TEST(LawCheck, SaysWhatIsWrongAsAViewShowsItWhileTyping) {
    const auto table = generatedTable();
    auto law = chinchilla();
    EXPECT_EQ(checkLaw(table, {}, law), "");
    law.formula = "L = E + A/N^alpha + B/tokenz^beta";
    EXPECT_EQ(checkLaw(table, {}, law).rfind("at character 23: unknown name 'tokenz'", 0), 0u) << checkLaw(table, {}, law);
    law.formula = "L = E + A/N^alpha + B/(D^beta";
    EXPECT_NE(checkLaw(table, {}, law).find("unbalanced parenthesis"), std::string::npos);
    law.formula = "lossy = E + A/N^alpha + B/D^beta";
    EXPECT_EQ(checkLaw(table, {}, law), "the target 'lossy' is not a column of the runs");
    // Columns as spelled in the file, the target among them.
    law.formula = "loss = E + A/params^alpha + B/tokens^beta";
    EXPECT_EQ(checkLaw(table, {}, law), "");
}

TEST(LawAnalysisFit, GroupsSplitsAndIntervals) {
    const auto table = generatedTable();
    LawFitOptions options;
    options.groupColumn = "lab";
    options.train = conditions({"split=train"});
    options.resamples = 40;
    const auto a = fitLawAnalysis(table, AnalysisSettings{}, chinchilla(), options);
    ASSERT_FALSE(a.error) << *a.error;
    ASSERT_EQ(a.groups.size(), 2u);
    EXPECT_EQ(a.groups[0].name, "a");
    EXPECT_EQ(a.groups[1].name, "b");
    for (const auto& g : a.groups) {
        SCOPED_TRACE(g.name);
        EXPECT_EQ(g.nTrain, 20u);
        EXPECT_EQ(g.nTest, 4u);
        EXPECT_TRUE(g.fit.projected);
        EXPECT_NEAR(g.fit.params[0], g.name == "a" ? 1.8 : 2.1, 0.1);  // each group its own E
        EXPECT_GT(g.quality.r2, 0.99);
        EXPECT_LT(g.quality.aic, 0);
        EXPECT_GT(g.quality.bic, g.quality.aic);  // ln 20 > 2
        ASSERT_EQ(g.predictions.size(), 4u);
        for (const auto& p : g.predictions) {
            EXPECT_EQ(table.runs[static_cast<std::size_t>(p.run)].runId, p.label);
            EXPECT_NEAR(p.predicted / p.observed, 1, 0.01);
            EXPECT_LE(p.lower, p.predicted);
            EXPECT_GE(p.upper, p.predicted);
        }
    }
    ASSERT_TRUE(a.test);
    EXPECT_EQ(a.test->n, 8u);
    EXPECT_LT(a.test->mape, 0.01);

    // The JSON carries the contract's keys.
    const QJsonObject j = toJson(a);
    EXPECT_EQ(j["groups"].toArray().size(), 2);
    EXPECT_TRUE(j["groups"].toArray()[0].toObject()["params"].toObject().contains("alpha"));
    EXPECT_TRUE(j["test"].toObject()["max_rel_error"].isDouble());

    // The scope applies as for every analysis: --where lab=b leaves one group.
    AnalysisSettings onlyB;
    onlyB.scope.where = conditions({"lab=b"});
    const auto b = fitLawAnalysis(table, onlyB, chinchilla(), options);
    ASSERT_EQ(b.groups.size(), 1u);
    EXPECT_EQ(b.groups[0].name, "b");
}

TEST(LawAnalysisFit, LeaveOneOutHoldsOutEachValueInTurn) {
    const auto table = generatedTable();
    LawFitOptions options;
    options.groupColumn = "lab";
    options.leaveOneOut = "params";  // each model size in turn
    options.resamples = 0;
    const auto a = fitLawAnalysis(table, AnalysisSettings{}, chinchilla(), options);
    ASSERT_FALSE(a.error) << *a.error;
    ASSERT_EQ(a.groups.size(), 2u);
    for (const auto& g : a.groups) {
        EXPECT_EQ(g.nTrain, 24u);  // the reported fit is on every run
        EXPECT_EQ(g.nTest, 24u);   // and every run is predicted once, by a fit without its size
        ASSERT_EQ(g.predictions.size(), 24u);
        EXPECT_TRUE(g.foldErrors.empty());
        EXPECT_EQ(g.predictions.front().fold, "20000000");  // the cell as written
        EXPECT_EQ(g.predictions.back().fold, "3000000000");
        EXPECT_LT(g.test->maxRelError, 0.02);
    }
    EXPECT_EQ(a.test->n, 48u);
    // A fold's prediction is that of a fit without the fold: held out, the smallest size is
    // predicted less well than by the fit on every run.
    const auto& first = a.groups[0].predictions.front();
    std::vector<double> p = a.groups[0].fit.params;
    EXPECT_NE(first.predicted, p[0] + p[1] / std::pow(2e7, p[3]) + p[2] / std::pow(5 * 2e7, p[4]));
    LawFitOptions both = options;
    both.test = conditions({"split=test"});
    EXPECT_EQ(*fitLawAnalysis(table, {}, chinchilla(), both).error, "give either a leave-one-out column or a train/test split, not both");
    both = options;
    both.leaveOneOut = "nosuch";
    EXPECT_EQ(*fitLawAnalysis(table, {}, chinchilla(), both).error, "--leave-one-out: no column 'nosuch' in the runs");
}

TEST(LawAnalysisFit, WhatCannotBeFittedIsSaid) {
    const auto table = generatedTable();
    LawFitOptions options;
    options.train = conditions({"params<3e7"});  // the smallest model alone: 4 runs per lab for 5 parameters
    options.groupColumn = "lab";
    options.resamples = 0;
    const auto a = fitLawAnalysis(table, {}, chinchilla(), options);
    ASSERT_EQ(a.groups.size(), 2u);
    EXPECT_EQ(a.groups[0].error, "the law has 5 free parameters but only 4 runs to fit them");
    ASSERT_TRUE(a.error);
    auto bad = chinchilla();
    bad.formula = "L = E + A/N^alpha + B/D^beta +";
    const auto b = fitLawAnalysis(table, {}, bad, {});
    ASSERT_TRUE(b.error);
    EXPECT_NE(b.error->find("formula"), std::string::npos);
    AnalysisSettings none;
    none.scope.where = conditions({"lab=c"});
    EXPECT_EQ(*fitLawAnalysis(table, none, chinchilla(), {}).error, "no runs in scope");
}
