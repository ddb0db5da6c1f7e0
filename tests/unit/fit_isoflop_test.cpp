// IsoFLOP parabolas and the N*(H), D*(H) power laws against the authors' own numbers
// (reference README (a): isoflop_parabola_optima.csv, isoflop_powerlaw_fits.csv).
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "core/analysis/ExportTables.h"
#include "core/analysis/RunSelection.h"
#include "core/analysis/SeriesAnalyses.h"
#include "core/fit/IsoFlop.h"
#include "tests/unit/fit_test_support.h"

using namespace scalex;
using namespace scalex::fit;

namespace {

// The sets with the authors' run filter are fitted on selected_in_paper rows; the two sets
// without one on every run with numbers (reference README (a) 3).
bool hasAuthorsFilter(const QString& set) { return set != "llama_ctx8192_flops_chinchilla" && set != "mlstm_ctx8192_large_gbs256"; }

const data::RunTable& table(const QString& set) {
    static std::map<QString, data::RunTable> cache;
    auto it = cache.find(set);
    if (it == cache.end()) it = cache.emplace(set, test::readIsoFlopRuns(set)).first;
    return it->second;
}

IsoFlopResult fitSet(const QString& set, double fitMin = 0, double fitMax = INFINITY) {
    analysis::RunFilter filter;
    filter.selectedOnly = hasAuthorsFilter(set);
    IsoFlopSettings s;
    s.fitMin = fitMin;
    s.fitMax = fitMax;
    return analysis::fitIsoFlop(table(set), filter, s);
}

// Agreement to `digits` significant digits.
void expectSignificant(double got, double want, int digits, const std::string& what) {
    EXPECT_LT(std::abs(got / want - 1), 0.5 * std::pow(10.0, 1 - digits)) << what << ": got " << got << ", want " << want;
}

}  // namespace

TEST(IsoFlop, ParabolaIsTheLeastSquaresFit) {
    const std::vector<double> x{8.0, 8.5, 9.0, 9.5, 10.0};
    std::vector<double> y;
    for (double v : x) y.push_back(0.5 * v * v - 9 * v + 43);
    const auto p = fitParabola(x, y);
    ASSERT_TRUE(p);
    EXPECT_NEAR(p->a, 0.5, 1e-9);
    EXPECT_NEAR(p->b, -9, 1e-8);
    EXPECT_NEAR(p->c, 43, 1e-7);
    EXPECT_NEAR(p->vertex(), 9, 1e-9);
    EXPECT_FALSE(fitParabola(std::vector<double>{1, 1, 2}, std::vector<double>{1, 2, 3}));
}

TEST(IsoFlop, BudgetsFollowTheTenPercentRule) {
    const IsoFlopSettings s;
    EXPECT_EQ(assignBudget(1.05e19, s), 1e19);
    EXPECT_EQ(assignBudget(5.5e18, s), 6e18);
    EXPECT_FALSE(assignBudget(1.1e19, s));  // |C − B| < 0.1·B is strict
    EXPECT_FALSE(assignBudget(2e19, s));
}

TEST(IsoFlop, ReproducesTheAuthorsParabolaOptima) {
    SCALEX_REQUIRE_SHARED();
    const auto ref = test::readSimpleCsv(test::sharedPath("reference/isoflop_parabola_optima.csv"));
    ASSERT_EQ(ref.rows.size(), 16);
    std::map<QString, IsoFlopResult> fits;
    for (int r = 0; r < ref.rows.size(); ++r) {
        const QString set = ref.at(r, "dataset").mid(QString("isoflop_").size());
        if (!fits.count(set)) fits[set] = fitSet(set);
        const double budget = ref.number(r, "isoflop_bucket");
        const IsoFlopProfile* prof = nullptr;
        for (const auto& p : fits[set].profiles)
            if (p.budget == budget) prof = &p;
        const std::string what = set.toStdString() + " @ " + ref.at(r, "isoflop_bucket").toStdString();
        ASSERT_NE(prof, nullptr) << what;
        EXPECT_EQ(prof->nRuns, ref.number(r, "n_runs")) << what;
        expectSignificant(prof->flopsMean, ref.number(r, "flops_mean"), 10, what + " flops_mean");
        expectSignificant(prof->nOpt, ref.number(r, "N_opt"), 6, what + " N*");
        expectSignificant(prof->dOpt, ref.number(r, "D_opt"), 6, what + " D*");
        expectSignificant(prof->lossAtNOpt, ref.number(r, "loss_at_N_opt"), 6, what + " L(N*)");
        expectSignificant(prof->lossAtDOpt, ref.number(r, "loss_at_D_opt"), 6, what + " L(D*)");
        expectSignificant(prof->inN.a, ref.number(r, "parabola_N_a"), 5, what + " a_N");
        expectSignificant(prof->inN.b, ref.number(r, "parabola_N_b"), 5, what + " b_N");
        expectSignificant(prof->inN.c, ref.number(r, "parabola_N_c"), 5, what + " c_N");
        expectSignificant(prof->inD.a, ref.number(r, "parabola_D_a"), 5, what + " a_D");
        expectSignificant(prof->inD.b, ref.number(r, "parabola_D_b"), 5, what + " b_D");
        expectSignificant(prof->inD.c, ref.number(r, "parabola_D_c"), 5, what + " c_D");
    }
}

TEST(IsoFlop, ReproducesEveryPowerLawOfTheReference) {
    SCALEX_REQUIRE_SHARED();
    const auto ref = test::readQuotedCsv(test::sharedPath("reference/isoflop_powerlaw_fits.csv"));
    ASSERT_EQ(ref.rows.size(), 14);
    for (int r = 0; r < ref.rows.size(); ++r) {
        const QString set = ref.at(r, "dataset").mid(QString("isoflop_").size());
        const double lo = ref.number(r, "flop_fit_min"), hi = ref.number(r, "flop_fit_max");
        const auto fit = fitSet(set, lo, hi);
        const bool isN = ref.at(r, "y") == "N_opt";
        const auto& law = isN ? fit.nOptLaw : fit.dOptLaw;
        const std::string what = set.toStdString() + " " + ref.at(r, "y").toStdString() + " [" +
                                 ref.at(r, "flop_fit_min").toStdString() + ", " + ref.at(r, "flop_fit_max").toStdString() + "]";
        ASSERT_TRUE(law) << what;
        EXPECT_EQ(fit.nBudgetsInLaw, ref.number(r, "n_points")) << what;
        expectSignificant(law->exponent, ref.number(r, "exponent"), 5, what + " exponent");
        expectSignificant(law->coefficient, ref.number(r, "coef"), 4, what + " coefficient");
    }
}

TEST(IsoFlop, MainTextTransformerLawAndWarnings) {
    SCALEX_REQUIRE_SHARED();
    // Fig. 4: a = 0.575, A' = 0.0023 / b = 0.424, B' = 58.5 on the four ctx-8192 budgets.
    const auto fit = fitSet("llama_ctx8192", 5e18, 2e20);
    ASSERT_TRUE(fit.nOptLaw && fit.dOptLaw);
    EXPECT_NEAR(fit.nOptLaw->exponent, 0.575, 5e-4);
    EXPECT_NEAR(fit.nOptLaw->coefficient, 0.0023, 5e-5);
    EXPECT_NEAR(fit.dOptLaw->exponent, 0.424, 5e-4);
    EXPECT_NEAR(fit.dOptLaw->coefficient, 58.5, 0.05);
    EXPECT_EQ(fit.nBudgetsInLaw, 4);
    EXPECT_GT(fit.nOptLaw->r2, 0.99);
    // 6e18 has 18 runs, every other budget more: no profile warning, optima inside the samples.
    for (const auto& p : fit.profiles) EXPECT_TRUE(p.warnings.empty()) << p.warnings.front();
    // Failed runs with no numbers and the authors' exclusions are left out, and the failed ones are listed.
    analysis::RunFilter all;
    const auto sel = analysis::isoFlopRuns(table("llama_ctx8192"), all);
    analysis::RunFilter selected;
    selected.selectedOnly = true;
    EXPECT_EQ(analysis::isoFlopRuns(table("llama_ctx8192"), selected).points.size(), 107u);
    EXPECT_LT(sel.points.size(), 113u);
}

TEST(IsoFlop, LeaveOneBudgetOutPredictsTheLeftOutOptimum) {
    SCALEX_REQUIRE_SHARED();
    const auto fit = fitSet("llama_ctx8192", 5e18, 2e20);
    const auto checks = leaveOneBudgetOut(fit);
    ASSERT_EQ(checks.size(), 4u);
    for (const auto& c : checks) {
        EXPECT_NEAR(c.nOptPredicted / c.nOptObserved, 1.0, 0.2) << c.budget;
        EXPECT_NEAR(c.dOptPredicted / c.dOptObserved, 1.0, 0.2) << c.budget;
        EXPECT_NEAR(c.nOptLaw.exponent, fit.nOptLaw->exponent, 0.05) << c.budget;
    }
    // Three budgets is the least that leaves two for a refit.
    EXPECT_TRUE(leaveOneBudgetOut(fitSet("llama_ctx8192", 5e18, 2e19)).empty());
}

TEST(IsoFlop, TransformerOptimumShrinksWithContextLength) {
    SCALEX_REQUIRE_SHARED();
    // Sec. "Compute-optimal xLSTM model size remains stable across Context Lengths": the
    // Transformer's N* at a fixed budget decreases as T grows (its attention FLOPs grow with T).
    const std::vector<double> contexts{2048, 8192, 16384};
    const std::vector<IsoFlopResult> fits{fitSet("llama_ctx2048", 5e18, 5e19), fitSet("llama_ctx8192", 5e18, 5e19),
                                          fitSet("llama_ctx16384", 5e18, 5e19)};
    const auto trend = contextTrend(contexts, fits, 1e20);
    ASSERT_EQ(trend.optima.size(), 3u);
    EXPECT_GT(trend.optima[0].nOpt, trend.optima[1].nOpt);
    EXPECT_GT(trend.optima[1].nOpt, trend.optima[2].nOpt);
    ASSERT_TRUE(trend.nOptOverContext);
    EXPECT_LT(trend.nOptOverContext->exponent, 0);
    EXPECT_NEAR(trend.optima[1].nOpt, (*fits[1].nOptLaw)(1e20), 1e-6 * trend.optima[1].nOpt);
}

TEST(IsoFlop, WarnsAboutThinDownwardAndOutOfRangeProfiles) {
    // Budget 1e19: a parabola opening downward; budget 1e20: minimum beyond the largest model.
    std::vector<IsoFlopRun> runs;
    for (double n : {1e8, 2e8, 4e8, 8e8}) runs.push_back({n, 1e19 / (6 * n), 1e19, 3.0 + 0.1 * std::pow(std::log10(n) - 8.45, 2) * -1});
    for (double n : {1e8, 2e8, 4e8}) runs.push_back({n, 1e20 / (6 * n), 1e20, 2.8 + 0.2 * std::pow(std::log10(n) - 9.5, 2)});
    runs.push_back({1e8, 1e9, 2e19, 3.0});  // in no budget
    const auto fit = fitIsoFlop(runs);
    ASSERT_EQ(fit.profiles.size(), 2u);
    EXPECT_EQ(fit.unassigned, std::vector<std::size_t>{7});
    const auto has = [&](const std::string& w) { return std::find(fit.warnings.begin(), fit.warnings.end(), w) != fit.warnings.end(); };
    EXPECT_TRUE(has("budget 1e+19: only 4 runs in the profile"));
    EXPECT_TRUE(has("budget 1e+19: the parabola in N opens downward (no minimum)"));
    EXPECT_TRUE(has("budget 1e+20: N* lies outside the sampled model sizes"));
    EXPECT_TRUE(has("fewer than 2 budgets in the fit range: no power law"));
    EXPECT_TRUE(has("fewer than 3 budgets in the power law"));
    EXPECT_FALSE(fit.nOptLaw);
}

TEST(IsoFlop, ProfileAtAnyBudgetFollowsTheLawsAndTheFittedProfiles) {
    SCALEX_REQUIRE_SHARED();
    const auto fit = fitSet("llama_ctx8192", 5e18, 2e20);
    ASSERT_TRUE(fit.nOptLaw && fit.dOptLaw);
    // At a fitted budget: the law's optimum, that profile's curvature, and a loss near its minimum.
    for (const auto& prof : fit.profiles) {
        if (!prof.fitted) continue;
        for (bool overTokens : {false, true}) {
            const auto p = analysis::profileAtBudget(fit, prof.flopsMean, overTokens);
            ASSERT_TRUE(p);
            EXPECT_NEAR(p->nOpt / (*fit.nOptLaw)(prof.flopsMean), 1.0, 1e-12);
            EXPECT_NEAR(p->dOpt / (*fit.dOptLaw)(prof.flopsMean), 1.0, 1e-12);
            EXPECT_NEAR(p->parabola.a, (overTokens ? prof.inD : prof.inN).a, 1e-9 * std::abs(p->parabola.a));
            EXPECT_NEAR(p->parabola.vertex(), std::log10(overTokens ? p->dOpt : p->nOpt), 1e-9);
            EXPECT_NEAR(p->parabola(p->parabola.vertex()), p->lossAtOpt, 1e-12);
            EXPECT_NEAR(p->lossAtOpt, overTokens ? prof.lossAtDOpt : prof.lossAtNOpt, 0.02) << prof.budget;
        }
    }
    // Between budgets the optimum grows and the minimum loss falls; outside them the curvature is held.
    const auto a = analysis::profileAtBudget(fit, 2e19, false), b = analysis::profileAtBudget(fit, 4e19, false);
    ASSERT_TRUE(a && b);
    EXPECT_GT(b->nOpt, a->nOpt);
    EXPECT_LT(b->lossAtOpt, a->lossAtOpt);
    const auto far = analysis::profileAtBudget(fit, 1e23, false), farther = analysis::profileAtBudget(fit, 1e24, false);
    ASSERT_TRUE(far && farther);
    EXPECT_DOUBLE_EQ(far->parabola.a, farther->parabola.a);
    // Without laws there is nothing to place the profile by.
    fit::IsoFlopResult none = fit;
    none.nOptLaw.reset();
    EXPECT_FALSE(analysis::profileAtBudget(none, 1e20, false));
}

// Planned runs (N and D, no loss yet) of the series: on the profile at their budget (C, else 6ND),
// at the loss it predicts at their N or D; runs of another series or with a loss are not planned;
// without the laws there is no profile to place them on.
TEST(IsoFlop, PlannedRunsSitOnTheProfileAtTheirBudget) {
    SCALEX_REQUIRE_SHARED();
    const auto fit = fitSet("llama_ctx8192", 5e18, 2e20);
    ASSERT_TRUE(fit.nOptLaw && fit.dOptLaw);
    data::RunTable runs = table("llama_ctx8192");
    const std::string series = runs.runs.front().series;
    const auto atOpt = analysis::profileAtBudget(fit, 1e21, false);
    ASSERT_TRUE(atOpt);
    auto planned = [&](double n, double d, double flops, const std::string& inSeries) {
        data::Run r;
        r.series = inSeries;
        r.params = n, r.tokens = d, r.flops = flops;
        runs.runs.push_back(r);
    };
    const int first = static_cast<int>(runs.runs.size());
    planned(atOpt->nOpt, 1e21 / (6 * atOpt->nOpt), data::kUnknown, series);  // at the optimum of 1e21 by 6ND
    planned(2 * atOpt->nOpt, 1e21 / (12 * atOpt->nOpt), 3e21, series);     // its C says 3e21
    planned(1e9, 1e10, data::kUnknown, series + " other");                  // another series
    EXPECT_EQ(analysis::plannedRuns(runs, series), (std::vector<int>{first, first + 1}));
    const auto placed = analysis::plannedOnProfiles(runs, series, fit, false);
    ASSERT_EQ(placed.size(), 2u);
    EXPECT_NEAR(placed[0].budget / 1e21, 1.0, 1e-12);
    EXPECT_NEAR(placed[0].loss, atOpt->lossAtOpt, 1e-9);
    const auto at3 = analysis::profileAtBudget(fit, 3e21, false);
    ASSERT_TRUE(at3);
    EXPECT_DOUBLE_EQ(placed[1].budget, 3e21);
    EXPECT_NEAR(placed[1].loss, at3->parabola(std::log10(2 * atOpt->nOpt)), 1e-12);
    EXPECT_GT(placed[1].loss, at3->lossAtOpt - 1e-12);
    // Over D the profile in D places it.
    const auto overD = analysis::plannedOnProfiles(runs, series, fit, true);
    const auto inD = analysis::profileAtBudget(fit, 1e21, true);
    ASSERT_TRUE(inD);
    EXPECT_NEAR(overD[0].loss, inD->parabola(std::log10(1e21 / (6 * atOpt->nOpt))), 1e-12);
    fit::IsoFlopResult none = fit;
    none.nOptLaw.reset();
    const auto unplaced = analysis::plannedOnProfiles(runs, series, none, false);
    ASSERT_EQ(unplaced.size(), 2u);
    EXPECT_TRUE(std::isnan(unplaced[0].loss));
    EXPECT_EQ(unplaced[0].n, atOpt->nOpt);
}

TEST(IsoFlop, ExportTablesCarryTheFitTheIntervalsAndThePapersExponent) {
    SCALEX_REQUIRE_SHARED();
    // The tables the IsoFLOP view and `render --table` write, built from the fit of Fig. 4.
    const auto fit = fitSet("llama_ctx8192", 5e18, 2e20);
    fit::BootstrapResult intervals;
    fit::BootstrapInterval a;
    a.name = "a";
    a.lower = 0.56;
    a.upper = 0.59;
    a.nValid = 200;
    intervals.intervals.push_back(a);
    analysis::OptimalPowerLaws paper;
    paper.exponentN = 0.575;
    paper.exponentD = 0.424;
    const std::vector<analysis::IsoFlopShown> shown{{"transformer", 8192, &fit, &intervals, paper}};
    const data::ExportTable laws = analysis::isoFlopLawTable(shown);
    ASSERT_EQ(laws.rows.size(), 2u);  // N*(H), D*(H)
    auto cell = [&](const data::ExportTable& t, std::size_t row, const std::string& column) {
        for (std::size_t c = 0; c < t.columns.size(); ++c)
            if (t.columns[c].key == column) return t.rows[row][c];
        ADD_FAILURE() << "no column " << column;
        return data::ExportCell{};
    };
    EXPECT_EQ(std::get<std::string>(cell(laws, 0, "model")), "Transformer");
    EXPECT_EQ(std::get<double>(cell(laws, 0, "context")), 8192);
    EXPECT_EQ(std::get<std::string>(cell(laws, 0, "law")), "N*(H)");
    EXPECT_NEAR(std::get<double>(cell(laws, 0, "exponent")), 0.575, 5e-4);
    EXPECT_EQ(std::get<double>(cell(laws, 0, "exponent_lower")), 0.56);
    EXPECT_EQ(std::get<double>(cell(laws, 0, "exponent_upper")), 0.59);
    EXPECT_TRUE(std::holds_alternative<std::monostate>(cell(laws, 0, "coefficient_lower")));  // no interval for A
    EXPECT_EQ(std::get<double>(cell(laws, 0, "paper_exponent")), 0.575);
    EXPECT_NEAR(std::get<double>(cell(laws, 1, "exponent")), 0.424, 5e-4);
    EXPECT_EQ(std::get<double>(cell(laws, 1, "paper_exponent")), 0.424);
    EXPECT_EQ(std::get<double>(cell(laws, 1, "budgets")), 4);

    // One row per fitted parabola, with its minimum; those outside the law's range say so.
    const data::ExportTable optima = analysis::isoFlopOptimaTable(shown);
    std::size_t fitted = 0, inLaw = 0;
    for (const auto& p : fit.profiles) fitted += p.fitted, inLaw += p.fitted && p.inPowerLaw;
    ASSERT_EQ(optima.rows.size(), fitted);
    std::size_t yes = 0;
    for (std::size_t r = 0; r < optima.rows.size(); ++r) yes += std::get<std::string>(cell(optima, r, "in_power_law")) == "yes";
    EXPECT_EQ(yes, inLaw);
    EXPECT_EQ(inLaw, 4u);

    // A context of 0 (unknown) is an empty cell, not "0".
    const data::ExportTable contexts = analysis::isoFlopContextTable({{"transformer", 0, &fit, nullptr, {}}});
    ASSERT_EQ(contexts.rows.size(), 2u);
    EXPECT_TRUE(std::holds_alternative<std::monostate>(cell(contexts, 0, "context")));
}
