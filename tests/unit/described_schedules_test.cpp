// A schedule described for a run and kept with it in the project (data::ProjectCurves::schedules):
// a tracker export keeps its config's description; a curve that logs no rate is fitted under the
// schedule described for it, the same before and after the project is saved and read back; a
// description that does not parse names the file and the run's key.
#include <gtest/gtest.h>

#include <cmath>

#include "core/analysis/CurveFits.h"
#include "core/data/Project.h"
#include "tests/support/TestData.h"

using namespace scalex;
using scalex::test::sharedPath;

namespace {

// The MPL's published 400M parameters (Luo et al., repository README "Best Parameters").
const std::vector<double> kMpl400M{2.375, 0.654, 0.429, 523.425, 2.025, 0.594, 0.635};
const std::string kWsd = "wsd:peak=0.0003,steps=12000,warmup=200,cooldown=0.25,decay=sqrt";

// Two runs that log no rate: their validation loss every 100 steps under kWsd and under a constant
// rate, from the known parameters.
data::ProjectCurves generatedCurves() {
    QByteArray csv = "run_id,step,val_loss\n";
    for (const char* run : {"wsd", "constant"}) {
        const auto spec = fit::parseScheduleSpec(std::string(run) == "wsd" ? kWsd : "constant:peak=0.0003,steps=12000,warmup=200");
        EXPECT_TRUE(spec);
        const fit::PreparedSchedule schedule(fit::Schedule::fromSpec(*spec));
        for (long t = 300; t <= 12000; t += 100)
            csv += QByteArray(run) + ',' + QByteArray::number(static_cast<qlonglong>(t)) + ',' +
                   QByteArray::number(schedule.loss(fit::CurveLaw::MultiPower, kMpl400M, t), 'g', 17) + '\n';
    }
    auto set = data::makeProjectCurves("generated", csv, "generated.csv");
    EXPECT_TRUE(set) << set.error().toString();
    return *set;
}

}  // namespace

TEST(DescribedSchedules, TrackerExportKeepsItsConfigsSchedule) {
    SCALEX_REQUIRE_SHARED();
    const QString file = sharedPath(
        "data/public/lr-schedules/ann124-0.2_slimpajama_llama_norm_nlayers12_nhead12_lr0.001_sched_wsd_warmup300_decay_sqrt_0.2_iter25000_bs50x2_ws2_"
        "seed0_data_seed1337.json");
    auto set = data::loadProjectCurves(file, "ann");
    ASSERT_TRUE(set) << set.error().toString();
    ASSERT_EQ(set->schedules.size(), 1u);
    const auto& [run, description] = *set->schedules.begin();
    EXPECT_EQ(run, set->curves.curves.front().runId);
    std::string why;
    const auto spec = fit::parseScheduleSpec(description, &why);
    ASSERT_TRUE(spec) << why;
    // The config: peak 1e-3, 25,000 iterations, 300 warm-up steps, the last 20 % decayed as 1 − sqrt to 0.
    EXPECT_EQ(spec->shape, fit::ScheduleShape::Wsd);
    EXPECT_DOUBLE_EQ(spec->peakLr, 1e-3);
    EXPECT_EQ(spec->steps, 25000);
    EXPECT_EQ(spec->warmupSteps, 300);
    EXPECT_DOUBLE_EQ(spec->cooldownFraction, 0.2);
    EXPECT_EQ(spec->decay, fit::DecayShape::Sqrt);
    EXPECT_EQ(spec->finalLr, 0);
}

TEST(DescribedSchedules, CurvesWithoutRatesFitUnderTheirDescribedScheduleAfterARoundTrip) {
    data::Project project;
    project.curves.push_back(generatedCurves());
    analysis::CurveFitOptions options;
    // Without a schedule the curves cannot be fitted, and the error says what is missing.
    auto none = analysis::fitStudyCurves(project.curves, options);
    ASSERT_FALSE(none);
    EXPECT_NE(none.error().message.find("described schedule"), std::string::npos) << none.error().message;

    project.curves[0].schedules = {{"wsd", kWsd}, {"constant", "constant:peak=0.0003,steps=12000,warmup=200"}};
    auto bytes = data::writeProject(project);
    ASSERT_TRUE(bytes) << bytes.error().toString();
    auto back = data::readProject(*bytes, "described.scalex");
    ASSERT_TRUE(back) << back.error().toString();
    EXPECT_EQ(back->curves[0].schedules, project.curves[0].schedules);

    auto before = analysis::fitStudyCurves(project.curves, options);
    auto after = analysis::fitStudyCurves(back->curves, options);
    ASSERT_TRUE(before) << before.error().toString();
    ASSERT_TRUE(after) << after.error().toString();
    EXPECT_EQ(before->fit.params, after->fit.params);
    ASSERT_EQ(after->runs.size(), 2u);
    for (const auto& run : after->runs) {
        EXPECT_EQ(run.scheduleSource.rfind("described ", 0), 0u) << run.scheduleSource;
        const auto spec = fit::parseScheduleSpec(project.curves[0].schedules.at(run.run.name));
        ASSERT_TRUE(spec);
        const auto expected = fit::Schedule::fromSpec(*spec);
        ASSERT_EQ(run.schedule.schedule().steps(), expected.steps());
        EXPECT_EQ(run.schedule.schedule().warmupSteps(), 200);
        EXPECT_DOUBLE_EQ(run.schedule.schedule().area(expected.steps()), expected.area(expected.steps()));
    }
    // The law that made the curves fits them (to the precision of its merged loss-drop blocks).
    for (const auto& c : after->fit.curves) {
        EXPECT_GT(c.r2, 0.999) << c.name;
        EXPECT_LT(c.worstE, 2e-3) << c.name;
    }
}

TEST(DescribedSchedules, BadDescriptionNamesTheFileAndRun) {
    data::Project project;
    project.curves.push_back(generatedCurves());
    project.curves[0].schedules = {{"wsd", "wsd:peak=fast,steps=12000"}};
    const auto r = analysis::fitStudyCurves(project.curves, {});
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().file, "generated.csv");
    EXPECT_EQ(r.error().column, "schedules.wsd");
    EXPECT_NE(r.error().message.find("'peak'"), std::string::npos) << r.error().message;
}
