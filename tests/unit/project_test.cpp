// Projects (.scalex): round trips (with loss curves and inference measurements), atomic saving, the corpus of bad projects, zip-bomb limits,
// recent files and last session; table exports (CSV, LaTeX, JSON records).
#include <QBuffer>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSettings>
#include <QTemporaryDir>
#include <gtest/gtest.h>

#include <quazip/quazip.h>
#include <quazip/quazipfile.h>
#include <quazip/quazipnewinfo.h>

#include "app/cli/Verbs.h"
#include "core/data/ExampleProject.h"
#include "core/data/Export.h"
#include "core/data/Project.h"
#include "core/data/ProjectHistory.h"
#include "core/accounting/ModelConfig.h"
#include "core/data/RunTableColumns.h"
#include "core/data/RunTableIo.h"
#include "tests/support/TestData.h"

using namespace scalex::data;
using scalex::accounting::Family;
using scalex::test::sourcePath;

namespace {

const PaperTables& paper() {
    static const PaperTables t = [] {
        auto p = loadPaperTables(sourcePath("datasets/paper"));
        if (!p) ADD_FAILURE() << p.error().toString();
        return p ? *p : PaperTables{};
    }();
    return t;
}

// JSON does not tell 8192 from 8192.0: objects are compared as they serialise.
bool sameNumber(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

// Everything a run carries through a file; sourceLine and problems are re-derived on load.
void expectSameRun(const Run& a, const Run& b) {
    SCOPED_TRACE(a.runId);
    EXPECT_EQ(a.runId, b.runId);
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.dataset, b.dataset);
    EXPECT_EQ(a.family, b.family);
    EXPECT_EQ(a.experimentSet, b.experimentSet);
    EXPECT_EQ(a.dModel, b.dModel);
    EXPECT_EQ(a.nLayers, b.nLayers);
    EXPECT_EQ(a.nHeads, b.nHeads);
    EXPECT_EQ(a.nKvHeads, b.nKvHeads);
    EXPECT_EQ(a.dQk, b.dQk);
    EXPECT_EQ(a.dHv, b.dHv);
    EXPECT_EQ(a.dFf, b.dFf);
    EXPECT_EQ(a.vocab, b.vocab);
    EXPECT_EQ(a.chunk, b.chunk);
    // The reader gives every run with a C its nominal budget (RunDerivation), also runs in no
    // IsoFLOP profile, so an unknown budget is not compared.
    if (known(a.budget)) EXPECT_EQ(a.budget, b.budget);
    for (auto [x, y, what] : {std::tuple{a.context, b.context, "context"}, {a.params, b.params, "params"},
                              {a.tokens, b.tokens, "tokens"}, {a.flops, b.flops, "flops"},
                              {a.batchSize, b.batchSize, "batch"}, {a.steps, b.steps, "steps"},
                              {a.learningRate, b.learningRate, "lr"}, {a.valLoss, b.valLoss, "val_loss"},
                              {a.trainLoss, b.trainLoss, "train_loss"}})
        EXPECT_TRUE(sameNumber(x, y)) << what << ": " << x << " vs " << y;
    EXPECT_EQ(a.selectedInPaper, b.selectedInPaper);
    EXPECT_EQ(a.userIncluded, b.userIncluded);
    EXPECT_EQ(a.paramsSource, b.paramsSource);
    EXPECT_EQ(a.tokensSource, b.tokensSource);
    EXPECT_EQ(a.flopsSource, b.flopsSource);
}

Project richProject() {
    Project p = makeExampleProject(paper());
    // Exercise every optional field of a run.
    scalex::data::Run& r = p.tables[0].table.runs[0];
    r.selectedInPaper = true;
    r.userIncluded = false;
    r.trainLoss = 3.0 + 1.0 / 3.0;
    p.tables[1].table.runs[1].selectedInPaper = false;
    p.settings.setFlopConvention("chinchilla");
    p.settings.setContextLength(16384);
    p.settings.setSelectedOnly(true);
    p.settings.setHuberDelta(1e-5);
    p.settings.setGammaMode(GammaMode::FixedOne);
    p.settings.setBudgetRange(std::make_pair(6e18, 1e20));
    p.settings.setAnalysis("lnd_fit", {{"starts", 8000}, {"families", QJsonArray{"transformer", "xlstm"}}});
    p.settings.setView("pareto", {{"log_x", true}, {"theme", "light"}});
    FigureRecipe figure;
    figure.view = "pareto";
    figure.format = "svg";
    figure.widthInches = 3.25;
    figure.heightInches = 2.4;
    figure.dpi = 600;
    figure.paper = true;
    figure.font = "DejaVu Serif";
    figure.analysis = {{"context", 16384}, {"convention", "chinchilla"}, {"huber_delta", 1e-5}};
    figure.controls = {{"family", "xLSTM"}, {"curves", true}, {"slider", 42}};
    figure.include = {{"run-7", false}, {"#3", true}};
    figure.selection = {"run-1", "#12"};
    figure.dataDigest = std::string(64, 'a');
    figure.created = "2026-11-22T06:30:00Z";
    p.recipes = {{"figure1", figure}, {"fig-2.iso", FigureRecipe{.view = "isoflop"}}};
    p.results = {{"lnd_fit", QJsonObject{{"transformer", QJsonObject{{"log_a", 11.99}, {"gamma", 0.29}}}}}};
    return p;
}

}  // namespace

TEST(Project, RoundTripKeepsRunsSettingsRecipesAndResults) {
    const Project original = richProject();
    auto bytes = writeProject(original);
    ASSERT_TRUE(bytes) << bytes.error().toString();
    auto back = readProject(*bytes, "rich.scalex");
    ASSERT_TRUE(back) << back.error().toString();
    EXPECT_EQ(back->title, original.title);
    ASSERT_TRUE(back->generated);
    EXPECT_TRUE(jsonEquivalent(*back->generated, *original.generated));
    EXPECT_EQ(back->settings, original.settings);
    EXPECT_EQ(back->recipes, original.recipes);
    EXPECT_TRUE(jsonEquivalent(back->results, original.results));
    ASSERT_EQ(back->tables.size(), original.tables.size());
    for (std::size_t t = 0; t < original.tables.size(); ++t) {
        EXPECT_EQ(back->tables[t].name, original.tables[t].name);
        EXPECT_EQ(back->tables[t].table.source, original.tables[t].table.source);
        ASSERT_EQ(back->tables[t].table.runs.size(), original.tables[t].table.runs.size());
        for (std::size_t i = 0; i < original.tables[t].table.runs.size(); ++i)
            expectSameRun(original.tables[t].table.runs[i], back->tables[t].table.runs[i]);
    }
    // Typed settings read back as set.
    EXPECT_EQ(back->settings.flopConvention(), "chinchilla");
    EXPECT_EQ(back->settings.contextLength(), 16384);
    EXPECT_TRUE(back->settings.selectedOnly());
    EXPECT_EQ(back->settings.huberDelta(), 1e-5);
    EXPECT_EQ(back->settings.gammaMode(), GammaMode::FixedOne);
    EXPECT_EQ(back->settings.budgetRange(), std::make_pair(6e18, 1e20));
    // After one load (which fills derived columns) saving and loading is a fixed point: nothing
    // is lost or reordered.
    auto again = writeProject(*back);
    ASSERT_TRUE(again);
    auto third = readProject(*again, "again.scalex");
    ASSERT_TRUE(third);
    auto fourth = writeProject(*third);
    ASSERT_TRUE(fourth);
    EXPECT_EQ(*fourth, *again);
}

// A copy of the zip `bytes` with entry `name` holding `content` instead.
static QByteArray withEntry(const QByteArray& bytes, const QString& name, const QByteArray& content) {
    QByteArray in = bytes, out;
    QBuffer inBuffer(&in), outBuffer(&out);
    QuaZip src(&inBuffer), dst(&outBuffer);
    EXPECT_TRUE(src.open(QuaZip::mdUnzip));
    EXPECT_TRUE(dst.open(QuaZip::mdCreate));
    for (bool more = src.goToFirstFile(); more; more = src.goToNextFile()) {
        const QString entry = src.getCurrentFileName();
        QuaZipFile from(&src);
        EXPECT_TRUE(from.open(QIODevice::ReadOnly));
        const QByteArray data = entry == name ? content : from.readAll();
        QuaZipFile to(&dst);
        EXPECT_TRUE(to.open(QIODevice::WriteOnly, QuaZipNewInfo(entry)));
        to.write(data);
    }
    dst.close();
    return out;
}

TEST(Project, BadRecipesAreRefusedNamingTheRecipeAndField) {
    const std::vector<std::pair<QByteArray, std::string>> cases{
        {R"({"fig1": {"format": "pdf"}})", "recipes.json, key 'fig1.view': missing"},
        {R"({"fig1": {"view": "pareto", "format": "eps"}})", "recipes.json, key 'fig1.format': expected \"pdf\", \"svg\" or \"png\", got \"eps\""},
        {R"({"fig1": {"view": "pareto", "width_in": 0.2}})", "recipes.json, key 'fig1.width_in': expected a width from 1 to 40 inches"},
        {R"({"fig1": {"view": "pareto", "height_in": "tall"}})", "recipes.json, key 'fig1.height_in': expected 0 (automatic) or a height from 1 to 40 inches"},
        {R"({"fig1": {"view": "pareto", "dpi": 72.5}})", "recipes.json, key 'fig1.dpi': expected a whole number of dots per inch"},
        {R"({"fig1": {"view": "pareto", "style": "fancy"}})", "recipes.json, key 'fig1.style': expected \"paper\" or \"screen\", got \"fancy\""},
        {R"({"fig1": {"view": "pareto", "include": {"run-1": "yes"}}})", "recipes.json, key 'fig1.include.run-1': expected true or false"},
        {R"({"fig1": {"view": "pareto", "selection": ["a", 3]}})", "recipes.json, key 'fig1.selection[1]': expected a run key (a string)"},
        {R"({"fig1": {"view": "pareto", "controls": {"family": [1]}}})", "recipes.json, key 'fig1.controls.family': expected a string, a number or true/false"},
        {R"({"../fig": {"view": "pareto"}})", "recipes.json, key '../fig': a recipe name must be 1 to 100 letters, digits, '.', '_' or '-'"},
        {R"({"fig1": 3})", "recipes.json, key 'fig1': expected a recipe (an object)"},
    };
    for (const auto& [json, message] : cases) {
        SCOPED_TRACE(json.toStdString());
        auto r = recipesFromJson(QJsonDocument::fromJson(json).object(), "recipes.json");
        ASSERT_FALSE(r);
        EXPECT_EQ(r.error().toString(), message);
    }
    // Inside a project, the error names the project and its recipes.json; nothing is loaded.
    auto bytes = writeProject(richProject());
    ASSERT_TRUE(bytes);
    auto p = readProject(withEntry(*bytes, "recipes.json", R"({"fig1": {"view": "pareto", "dpi": 5}})"), "paper.scalex");
    ASSERT_FALSE(p);
    EXPECT_EQ(p.error().toString(), "paper.scalex/recipes.json, key 'fig1.dpi': expected a resolution from 30 to 2400 dpi");
}

TEST(Project, RecipeDigestFollowsTheRunsNotTheIncludeToggles) {
    Project p = richProject();
    auto digest = [&] {
        std::vector<const RunTable*> tables;
        for (const auto& t : p.tables) tables.push_back(&t.table);
        return runTablesDigest(tables);
    };
    const std::string before = digest();
    EXPECT_EQ(before.size(), 64u);
    p.tables[0].table.runs[0].userIncluded = !p.tables[0].table.runs[0].included();
    EXPECT_EQ(digest(), before) << "toggles are kept by the recipe, not the digest";
    p.tables[0].table.runs[0].valLoss += 1e-9;
    EXPECT_NE(digest(), before) << "a changed loss changes the digest";
}

TEST(Project, RunKeysAreRunIdsWhenUniqueElseIndices) {
    scalex::data::Run a, b, c, d;
    a.runId = "alpha";
    b.runId = "dup";
    c.runId = "dup";
    // d has no id
    EXPECT_EQ(runKeys({&a, &b, &c, &d}), (std::vector<std::string>{"alpha", "#1", "#2", "#3"}));
}

TEST(Project, BuiltinExampleAndTablesAreEmbedded) {
    scalex::cli::ensureBuiltinResources();
    QString error;
    const auto example = loadExampleProject(&error);
    ASSERT_TRUE(example) << error.toStdString();
    ASSERT_EQ(example->tables.size(), 2u);
    EXPECT_EQ(example->tables[0].name, kExampleTokenParamTable);
    EXPECT_EQ(example->tables[0].table.runs.size(), 64u);
    EXPECT_EQ(example->tables[1].name, kExampleIsoFlopTable);
    ASSERT_TRUE(example->generated);
    auto builtin = loadPaperTables();
    ASSERT_TRUE(builtin) << builtin.error().toString();
    EXPECT_EQ(builtin->optimalConfigs.size(), paper().optimalConfigs.size());
    EXPECT_EQ(builtin->modelConfigs.size(), paper().modelConfigs.size());
}

TEST(Project, TableCsvRoundTrip) {
    const Project p = makeExampleProject(paper());
    for (const auto& t : p.tables) {
        auto back = parseRunTable(writeRunTableCsv(t.table), t.name + ".csv");
        ASSERT_TRUE(back) << back.error().toString();
        ASSERT_EQ(back->runs.size(), t.table.runs.size());
        for (std::size_t i = 0; i < t.table.runs.size(); ++i) {
            expectSameRun(t.table.runs[i], back->runs[i]);
            EXPECT_FALSE(back->runs[i].hasProblems()) << back->runs[i].runId << ": " << back->runs[i].problems.front();
        }
    }
}

TEST(Project, SettingsDefaultsAreThePapers) {
    const ProjectSettings s;
    EXPECT_EQ(s.flopConvention(), "study");
    EXPECT_EQ(s.contextLength(), 8192);
    EXPECT_TRUE(s.selectedOnly());  // the study's own selection, wherever a table has one
    EXPECT_EQ(s.huberDelta(), 1e-3);
    EXPECT_EQ(s.gammaMode(), GammaMode::Free);
    EXPECT_FALSE(s.budgetRange());
}

TEST(Project, SaveIsAtomicAndLeavesNoTemporaryFile) {
    QTemporaryDir dir;
    const QString path = dir.filePath("p.scalex");
    QFile old(path);
    ASSERT_TRUE(old.open(QIODevice::WriteOnly));
    old.write("previous contents");
    old.close();
    const Project p = makeExampleProject(paper());
    ASSERT_FALSE(saveProject(p, path));
    EXPECT_EQ(QDir(dir.path()).entryList(QDir::Files), QStringList{"p.scalex"});
    auto back = loadProject(path);
    ASSERT_TRUE(back) << back.error().toString();
    EXPECT_EQ(back->tables.size(), 2u);
    // A failing save (directory missing) reports the path and creates nothing.
    const QString bad = dir.filePath("missing/q.scalex");
    auto e = saveProject(p, bad);
    ASSERT_TRUE(e);
    EXPECT_NE(e->toString().find(bad.toStdString()), std::string::npos);
    EXPECT_FALSE(QFile::exists(bad));
}

namespace {

// Two runs of curves (validation every other step, as the study logs it) and three measurements.
const QByteArray kCurvesCsv =
    "run_id,step,tokens,train_loss,val_loss,lr\n"
    "r1,0,,10.5,,0\n"
    "r1,50,409600,8.25,,0.0003\n"
    "r1,100,819200,6.125,5.9,0.0003\n"
    "r2,0,,10.75,,\n"
    "r2,100,819200,6.5,6.0078125,1e-05\n";
const QByteArray kInferenceCsv =
    "model,family,batchsize,prefill,num_params,ttft_ms,steptime_ms,failed\n"
    "llama2_160m,llama2,1,128,162000000,5.5,10.25,False\n"
    "llama2_160m,llama2,1,256,162000000,-1,-1,True\n"
    "xlstm_160m,xlstm,1,128,165000000,6.5,9.75,False\n";

Project projectWithSets() {
    Project p = richProject();
    auto curves = makeProjectCurves("curves_a", kCurvesCsv, "curves_a.csv");
    EXPECT_TRUE(curves) << curves.error().toString();
    auto inference = makeProjectInference("bench", kInferenceCsv, {}, "bench.csv");
    EXPECT_TRUE(inference) << inference.error().toString();
    p.curves.push_back(std::move(*curves));
    p.inference.push_back(std::move(*inference));
    return p;
}

QJsonObject manifestOf(const QByteArray& project) {
    QByteArray bytes = project;
    QBuffer buffer(&bytes);
    QuaZip zip(&buffer);
    EXPECT_TRUE(zip.open(QuaZip::mdUnzip));
    EXPECT_TRUE(zip.setCurrentFile("manifest.json"));
    QuaZipFile file(&zip);
    EXPECT_TRUE(file.open(QIODevice::ReadOnly));
    return QJsonDocument::fromJson(file.readAll()).object();
}

bool samePoint(const CurvePoint& a, const CurvePoint& b) {
    return sameNumber(a.step, b.step) && sameNumber(a.tokens, b.tokens) && sameNumber(a.trainLoss, b.trainLoss) &&
           sameNumber(a.valLoss, b.valLoss) && sameNumber(a.lr, b.lr);
}

void expectSameCurves(const LossCurves& a, const LossCurves& b) {
    ASSERT_EQ(a.curves.size(), b.curves.size());
    for (std::size_t i = 0; i < a.curves.size(); ++i) {
        EXPECT_EQ(a.curves[i].runId, b.curves[i].runId);
        ASSERT_EQ(a.curves[i].points.size(), b.curves[i].points.size());
        for (std::size_t k = 0; k < a.curves[i].points.size(); ++k)
            EXPECT_TRUE(samePoint(a.curves[i].points[k], b.curves[i].points[k])) << a.curves[i].runId << " point " << k;
    }
}

void expectSameMeasurements(const InferenceData& a, const InferenceData& b) {
    ASSERT_EQ(a.points.size(), b.points.size());
    for (std::size_t i = 0; i < a.points.size(); ++i) {
        const auto &x = a.points[i], &y = b.points[i];
        EXPECT_EQ(x.model, y.model);
        EXPECT_EQ(x.familyTag, y.familyTag);
        EXPECT_EQ(x.batch, y.batch);
        EXPECT_EQ(x.prefill, y.prefill);
        EXPECT_EQ(x.ttftMs, y.ttftMs);
        EXPECT_EQ(x.stepMs, y.stepMs);
        EXPECT_EQ(x.failedFlag, y.failedFlag);
        EXPECT_EQ(x.line, y.line);
    }
    ASSERT_EQ(a.models.size(), b.models.size());
    for (std::size_t i = 0; i < a.models.size(); ++i) {
        EXPECT_EQ(a.models[i].model, b.models[i].model);
        EXPECT_EQ(a.models[i].numParams, b.models[i].numParams);
        EXPECT_EQ(a.models[i].config.has_value(), b.models[i].config.has_value());
        if (a.models[i].config && b.models[i].config) EXPECT_TRUE(*a.models[i].config == *b.models[i].config);
    }
}

}  // namespace

TEST(Project, CurvesAndInferenceSetsRoundTripLosslesslyAndDeterministically) {
    const Project original = projectWithSets();
    ASSERT_EQ(original.curves.size(), 1u);
    ASSERT_EQ(original.inference.size(), 1u);
    auto bytes = writeProject(original);
    ASSERT_TRUE(bytes) << bytes.error().toString();
    auto same = writeProject(projectWithSets());
    ASSERT_TRUE(same);
    EXPECT_TRUE(*bytes == *same) << "the same project gives the same bytes";
    const QJsonObject manifest = manifestOf(*bytes);
    EXPECT_EQ(manifest.value("format_version").toInt(), 4);  // it has run tables
    EXPECT_EQ(manifest.value("curves")[0]["file"].toString(), "curves/curves_a.csv");
    EXPECT_EQ(manifest.value("curves")[0]["curves"].toInt(), 2);
    EXPECT_EQ(manifest.value("curves")[0]["points"].toInt(), 5);
    EXPECT_EQ(manifest.value("inference")[0]["file"].toString(), "inference/bench.csv");
    EXPECT_EQ(manifest.value("inference")[0]["measurements"].toInt(), 3);
    EXPECT_EQ(manifest.value("inference")[0]["models"].toInt(), 2);

    auto back = readProject(*bytes, "sets.scalex");
    ASSERT_TRUE(back) << back.error().toString();
    ASSERT_EQ(back->curves.size(), 1u);
    ASSERT_EQ(back->inference.size(), 1u);
    EXPECT_EQ(back->curves[0].name, "curves_a");
    EXPECT_EQ(back->curves[0].source, "curves_a.csv");
    EXPECT_EQ(back->curves[0].csv, kCurvesCsv);
    expectSameCurves(original.curves[0].curves, back->curves[0].curves);
    // Not logged stays not logged.
    EXPECT_TRUE(std::isnan(back->curves[0].curves.curves[0].points[0].tokens));
    EXPECT_TRUE(std::isnan(back->curves[0].curves.curves[0].points[1].valLoss));
    EXPECT_EQ(back->curves[0].curves.curves[1].finalValLoss(), 6.0078125);
    EXPECT_EQ(back->inference[0].name, "bench");
    EXPECT_EQ(back->inference[0].csv, kInferenceCsv);
    expectSameMeasurements(original.inference[0].data, back->inference[0].data);
    EXPECT_FALSE(back->inference[0].data.points[1].ttftValid());
    ASSERT_EQ(back->tables.size(), original.tables.size());
    EXPECT_EQ(back->settings, original.settings);
    // After one load (which fills the run tables' derived columns) saving and loading is a fixed point.
    auto again = writeProject(*back);
    ASSERT_TRUE(again);
    auto third = readProject(*again, "again.scalex");
    ASSERT_TRUE(third);
    auto fourth = writeProject(*third);
    ASSERT_TRUE(fourth);
    EXPECT_TRUE(*fourth == *again);
}

TEST(Project, StudyMeasurementsKeepTheirDfDictArchitecturesThroughAProject) {
    SCALEX_REQUIRE_SHARED();
    auto set = loadProjectInference(scalex::test::sharedPath("data/xlstm/inference_results.csv"), "inference_results");
    ASSERT_TRUE(set) << set.error().toString();
    EXPECT_EQ(set->dfDicts.size(), 2u) << "the llama2 and xlstm df_dict files beside it";
    EXPECT_EQ(set->data.points.size(), 2340u);
    int withArchitecture = 0;
    for (const auto& m : set->data.models) withArchitecture += m.config.has_value();
    EXPECT_GT(withArchitecture, 0);
    Project p;
    p.title = "inference";
    p.inference.push_back(*set);
    auto bytes = writeProject(p);
    ASSERT_TRUE(bytes) << bytes.error().toString();
    auto back = readProject(*bytes, "inference.scalex");
    ASSERT_TRUE(back) << back.error().toString();
    ASSERT_EQ(back->inference.size(), 1u);
    EXPECT_EQ(back->inference[0].dfDicts, set->dfDicts);
    expectSameMeasurements(set->data, back->inference[0].data);
    EXPECT_EQ(back->inference[0].data.source, scalex::test::sharedPath("data/xlstm/inference_results.csv").toStdString());
}

TEST(Project, ProjectsAreTheLowestVersionThatHoldsThem) {
    Project p = richProject();
    auto bytes = writeProject(p);
    ASSERT_TRUE(bytes);
    const QJsonObject manifest = manifestOf(*bytes);
    // Run tables in columns make version 4; a project of settings alone stays version 1.
    EXPECT_EQ(manifest.value("format_version").toInt(), 4);
    EXPECT_EQ(manifest.value("tables")[0]["file"].toString().toStdString(), "runs/" + p.tables[0].name + ".columns");
    p.tables.clear();
    EXPECT_EQ(manifestOf(*writeProject(p)).value("format_version").toInt(), 1);
    EXPECT_FALSE(manifest.contains("curves"));
    EXPECT_FALSE(manifest.contains("inference"));
    // The corpus project holding both (made by tests/data/projects/make_corpus.py) loads.
    auto sets = loadProject(sourcePath("tests/data/projects/with_sets.scalex"));
    ASSERT_TRUE(sets) << sets.error().toString();
    ASSERT_EQ(sets->curves.size(), 1u);
    EXPECT_EQ(sets->curves[0].curves.pointCount(), 2u);
    ASSERT_EQ(sets->inference.size(), 1u);
    EXPECT_EQ(sets->inference[0].data.points.size(), 1u);
    // Projects written before curves and measurements were saved still load, with neither.
    for (const char* path : {"tests/data/projects/example_v1.scalex", "tests/data/projects/bad_row.scalex"}) {
        auto p = loadProject(sourcePath(path));
        ASSERT_TRUE(p) << path << ": " << p.error().toString();
        EXPECT_FALSE(p->tables.empty());
        EXPECT_TRUE(p->curves.empty());
        EXPECT_TRUE(p->inference.empty());
    }
}

TEST(Project, ModelSpecsRoundTripAndOlderProjectsStillOpen) {
    using namespace scalex::accounting;
    Project p = richProject();
    ModelSpec gqa = fromPaperConfig(makeStudyConfig(Family::Transformer, 2048, 24, 16, {.nKvHeads = 4}));
    gqa.name = "gqa";
    ModelSpec hybrid = fromPaperConfig(makeStudyConfig(Family::Xlstm, 1024, 4, 4));
    hybrid.attention = {.nHeads = 8, .nKvHeads = 2, .dQk = 128, .dV = 128, .slidingWindow = 512};
    hybrid.layers[1] = {MixerKind::Attention, true, FeedForwardKind::Dense};
    hybrid.layers[3] = {MixerKind::Attention, false, FeedForwardKind::Dense};
    p.specs = {{"gqa-2b", "gqa.json", gqa}, {"hybrid", "", hybrid}};
    auto bytes = writeProject(p);
    ASSERT_TRUE(bytes) << bytes.error().toString();
    EXPECT_EQ(manifestOf(*bytes).value("format_version").toInt(), 4);  // it has run tables
    auto back = readProject(*bytes, "p.scalex");
    ASSERT_TRUE(back) << back.error().toString();
    ASSERT_EQ(back->specs.size(), 2u);
    EXPECT_EQ(back->specs[0].name, "gqa-2b");
    EXPECT_EQ(back->specs[0].source, "gqa.json");
    EXPECT_TRUE(back->specs[0].spec == gqa);
    EXPECT_TRUE(back->specs[1].spec == hybrid);
    EXPECT_EQ(back->tables.size(), p.tables.size());
    EXPECT_EQ(*writeProject(p), *bytes);  // deterministic
    // Specs without run tables are version 3; the version-1 and -2 projects on disk open with none.
    p.tables.clear();
    EXPECT_EQ(manifestOf(*writeProject(p)).value("format_version").toInt(), 3);
    for (const char* path : {"tests/data/projects/example_v1.scalex", "tests/data/projects/with_sets.scalex"}) {
        auto old = loadProject(sourcePath(path));
        ASSERT_TRUE(old) << path << ": " << old.error().toString();
        EXPECT_TRUE(old->specs.empty());
    }
    // Two specs of one name are refused on writing.
    p.specs = {{"a", "", gqa}, {"a", "", gqa}};
    EXPECT_EQ(writeProject(p).error().message, "two model specs are named 'a'");
}

TEST(Project, BadCurvesOrMeasurementEntriesNameTheEntryLineAndColumn) {
    auto bytes = writeProject(projectWithSets());
    ASSERT_TRUE(bytes);
    auto p = readProject(withEntry(*bytes, "curves/curves_a.csv", "run_id,step,val_loss\nr1,0,\nr1,abc,3.5\n"), "hostile.scalex");
    ASSERT_FALSE(p);
    EXPECT_EQ(p.error().toString(), "hostile.scalex/curves/curves_a.csv, line 3, column 'step': expected a step number >= 0, got 'abc'");
    p = readProject(withEntry(*bytes, "curves/curves_a.csv", "run_id,step,val_loss\nr1,0,nope\n"), "hostile.scalex");
    ASSERT_FALSE(p);
    EXPECT_EQ(p.error().toString(), "hostile.scalex/curves/curves_a.csv, line 2, column 'val_loss': expected a number, got 'nope'");
    p = readProject(withEntry(*bytes, "inference/bench.csv",
                              "model,family,batchsize,prefill,ttft_ms,steptime_ms\nx,llama2,1,128,5.5,10\nx,llama2,0,128,5.5,10\n"),
                    "hostile.scalex");
    ASSERT_FALSE(p);
    EXPECT_EQ(p.error().toString(), "hostile.scalex/inference/bench.csv, line 3, column 'batchsize': expected a whole number >= 1, got '0'");
    // Counts in the manifest that the file does not hold: damaged.
    p = readProject(withEntry(*bytes, "curves/curves_a.csv", "run_id,step\nr1,0\n"), "hostile.scalex");
    ASSERT_FALSE(p);
    EXPECT_EQ(p.error().toString(), "hostile.scalex/curves/curves_a.csv: holds 1 curves, the manifest says 2 (damaged?)");
    // A set name that would leave its folder, and a listed file that is missing.
    QJsonObject manifest = manifestOf(*bytes);
    QJsonArray curves = manifest["curves"].toArray();
    QJsonObject set = curves[0].toObject();
    set["name"] = "../../evil";
    set["file"] = "curves/../../evil.csv";
    curves[0] = set;
    manifest["curves"] = curves;
    p = readProject(withEntry(*bytes, "manifest.json", QJsonDocument(manifest).toJson()), "hostile.scalex");
    ASSERT_FALSE(p);
    EXPECT_EQ(p.error().toString(),
              "hostile.scalex/manifest.json, key 'curves[0].name': expected a loss-curve set name of letters, digits, '.', '_', '-'");
    set["name"] = "other";
    set["file"] = "curves/other.csv";
    curves[0] = set;
    manifest["curves"] = curves;
    p = readProject(withEntry(*bytes, "manifest.json", QJsonDocument(manifest).toJson()), "hostile.scalex");
    ASSERT_FALSE(p);
    EXPECT_EQ(p.error().toString(), "hostile.scalex: the manifest lists curves/other.csv, which is missing from the archive");
    // A set name unusable as a file name is refused on writing too.
    Project bad = projectWithSets();
    bad.curves[0].name = "a/b";
    auto written = writeProject(bad);
    ASSERT_FALSE(written);
    EXPECT_EQ(written.error().message, "loss-curve set name 'a/b' is not usable as a file name (letters, digits, '.', '_', '-')");
}

TEST(Project, DamagedRunColumnsNameTheProjectTheMemberAndTheColumn) {
    const Project p = richProject();
    auto bytes = writeProject(p);
    ASSERT_TRUE(bytes);
    const QString member = QStringLiteral("runs/%1.columns").arg(QString::fromStdString(p.tables[0].name));
    auto good = readProject(*bytes, "p.scalex");
    ASSERT_TRUE(good) << good.error().toString();
    // A member whose directory is damaged (its zip entry intact).
    auto damaged = readProject(withEntry(*bytes, member, QByteArray("scalex-columns\n", 16) + QByteArray::fromHex("0100000004000000") + "{{{{"),
                               "p.scalex");
    ASSERT_FALSE(damaged);
    EXPECT_EQ(damaged.error().toString(), "p.scalex/" + member.toStdString() + ": its directory is not a JSON object (damaged?)");
    // A column cut short.
    auto cut = encodeRunTableColumns(p.tables[0].table);
    cut.chop(1);
    damaged = readProject(withEntry(*bytes, member, cut), "p.scalex");
    ASSERT_FALSE(damaged);
    EXPECT_EQ(damaged.error().column, "headers");
    EXPECT_EQ(damaged.error().file, "p.scalex/" + member.toStdString());
    // A table in the old CSV layout under the new name is not read as columns.
    damaged = readProject(withEntry(*bytes, member, writeRunTableCsv(p.tables[0].table)), "p.scalex");
    ASSERT_FALSE(damaged);
    EXPECT_EQ(damaged.error().toString(),
              "p.scalex/" + member.toStdString() + ": not a Scalex run-table column file (it does not start with \"scalex-columns\")");
}

TEST(Project, InvalidTableNamesAreRefusedOnWrite) {
    Project p;
    p.tables.push_back({"../escape", {}});
    auto bytes = writeProject(p);
    ASSERT_FALSE(bytes);
    EXPECT_EQ(bytes.error().message, "run table name '../escape' is not usable as a file name (letters, digits, '.', '_', '-')");
}

TEST(Project, UnsafeEntryNames) {
    EXPECT_FALSE(unsafeEntryName("runs/a.csv"));
    EXPECT_FALSE(unsafeEntryName("runs/a..b.csv"));
    EXPECT_EQ(unsafeEntryName("../a.csv"), "leaves its folder (\"..\")");
    EXPECT_EQ(unsafeEntryName("runs/../../a.csv"), "leaves its folder (\"..\")");
    EXPECT_EQ(unsafeEntryName("/etc/passwd"), "absolute path");
    EXPECT_EQ(unsafeEntryName("C:/x.csv"), "absolute path (drive letter)");
    EXPECT_EQ(unsafeEntryName("runs\\a.csv"), "backslash in the name");
    EXPECT_EQ(unsafeEntryName(""), "empty name");
}

// The corpus of bad projects in tests/data/projects (made by make_corpus.py there).
struct BadProject {
    const char* file;
    const char* message;  // the whole LoadError::toString() after the file path
};

class BadProjects : public ::testing::TestWithParam<BadProject> {};

TEST_P(BadProjects, AreRefusedWithAClearMessage) {
    const BadProject& c = GetParam();
    const QString path = sourcePath(QStringLiteral("tests/data/projects/%1").arg(c.file));
    ASSERT_TRUE(QFile::exists(path)) << path.toStdString();
    auto p = loadProject(path);
    ASSERT_FALSE(p) << c.file << " loaded";
    EXPECT_EQ(p.error().toString(), path.toStdString() + c.message);
}

INSTANTIATE_TEST_SUITE_P(
    Corpus, BadProjects,
    ::testing::Values(
        BadProject{"not_a_zip.scalex", ": not a Scalex project (not a zip archive)"},
        BadProject{"truncated.scalex", ": damaged zip archive (truncated or corrupt: its directory cannot be read)"},
        BadProject{"damaged_entry.scalex", "/manifest.json: damaged zip entry (cannot be inflated)"},
        BadProject{"missing_manifest.scalex", ": not a Scalex project (no manifest.json in the archive)"},
        BadProject{"manifest_not_json.scalex", "/manifest.json, line 3: not valid JSON: unterminated object at offset 55"},
        BadProject{"manifest_not_object.scalex", "/manifest.json: expected a JSON object"},
        BadProject{"future_version.scalex",
                   "/manifest.json, key 'format_version': format version 99 is newer than this Scalex reads (4); open it "
                   "with a newer Scalex"},
        BadProject{"wrong_format.scalex",
                   "/manifest.json, key 'format': not a Scalex project manifest (expected \"format\": \"scalex-project\")"},
        BadProject{"path_traversal.scalex", ": refused zip entry 'runs/../../evil.csv': leaves its folder (\"..\")"},
        BadProject{"absolute_path.scalex", ": refused zip entry '/tmp/evil.csv': absolute path"},
        BadProject{"backslash_path.scalex", ": refused zip entry 'runs\\..\\evil.csv': backslash in the name"},
        BadProject{"duplicate_entry.scalex", ": duplicate zip entry 'manifest.json'"},
        BadProject{"missing_table.scalex", ": the manifest lists runs/runs.csv, which is missing from the archive"},
        BadProject{"row_count_mismatch.scalex", "/runs/runs.csv: holds 3 runs, the manifest says 5 (damaged?)"},
        BadProject{"bad_settings.scalex", "/settings.json, key 'common.huber_delta': expected a positive number"},
        BadProject{"bad_table_name.scalex",
                   "/manifest.json, key 'tables[0].name': expected a run table name of letters, digits, '.', '_', '-'"},
        BadProject{"bad_curves_content.scalex", "/curves/c.csv, line 3, column 'step': expected a step number >= 0, got '-50'"},
        BadProject{"bad_inference_content.scalex",
                   "/inference/m.csv, line 2, column 'family': expected a family (llama2, llama3, llama, transformer, xlstm, "
                   "mlstm), got 'gpt'"},
        // Run tables in columns, damaged (made by make_columns_corpus.py from columns.scalex).
        BadProject{"columns_truncated.scalex",
                   "/runs/duplicate_row.columns, column 'headers': truncated: the column's 85 bytes run past the end of the data "
                   "(80 bytes left)"},
        BadProject{"columns_bad_index.scalex",
                   "/runs/duplicate_row.columns, column 'series': bad dictionary index 99 at row 3 (the dictionary holds 2 values)"},
        BadProject{"columns_wrong_length.scalex", "/runs/duplicate_row.columns, column 'params': wrong length: 2 values for 3 rows"},
        BadProject{"columns_future_version.scalex",
                   "/runs/duplicate_row.columns: column format version 2 is newer than this Scalex reads (1); open it with a newer Scalex"},
        BadProject{"bad_curves_name.scalex",
                   "/manifest.json, key 'curves[0].name': expected a loss-curve set name of letters, digits, '.', '_', '-'"}),
    [](const auto& info) {
        std::string n = info.param.file;
        return n.substr(0, n.find('.'));
    });

TEST(Project, ColumnsOfTheCorpusKeepTheDuplicateRowMarked) {
    // columns.scalex: tests/data/bad/duplicate_row.csv saved by `scalex convert` in columns.
    auto p = loadProject(sourcePath("tests/data/projects/columns.scalex"));
    ASSERT_TRUE(p) << p.error().toString();
    ASSERT_EQ(p->tables.size(), 1u);
    const auto& runs = p->tables[0].table.runs;
    ASSERT_EQ(runs.size(), 3u);
    EXPECT_FALSE(runs[0].hasProblems());
    ASSERT_EQ(runs[2].problems.size(), 1u);
    EXPECT_EQ(runs[2].problems[0], "duplicate: identical to the row on line 2");
    EXPECT_EQ(runs[2].sourceLine, 4);
    EXPECT_EQ(runs[1].params, 4e8);
}

TEST(Project, BadRowIsKeptAndMarked) {
    const QString path = sourcePath("tests/data/projects/bad_row.scalex");
    auto p = loadProject(path);
    ASSERT_TRUE(p) << p.error().toString();
    ASSERT_EQ(p->tables.size(), 1u);
    const auto& runs = p->tables[0].table.runs;
    ASSERT_EQ(runs.size(), 3u);
    EXPECT_FALSE(runs[0].hasProblems());
    ASSERT_TRUE(runs[1].hasProblems());
    EXPECT_NE(runs[1].problems.front().find("not-a-number"), std::string::npos) << runs[1].problems.front();
    EXPECT_FALSE(runs[1].included());
    EXPECT_EQ(runs[1].sourceLine, 3);
    EXPECT_FALSE(runs[2].hasProblems());
}

namespace {

// A zip with one entry of `size` zero bytes (deflates to ~1/1000 of that).
QByteArray zipWithZeros(const QString& entry, qsizetype size) {
    QByteArray bytes;
    QBuffer buffer(&bytes);
    QuaZip zip(&buffer);
    EXPECT_TRUE(zip.open(QuaZip::mdCreate));
    QuaZipFile f(&zip);
    EXPECT_TRUE(f.open(QIODevice::WriteOnly, QuaZipNewInfo(entry)));
    const QByteArray zeros(1 << 20, '\0');
    for (qsizetype done = 0; done < size; done += zeros.size()) f.write(zeros.left(std::min<qsizetype>(zeros.size(), size - done)));
    f.close();
    zip.close();
    return bytes;
}

}  // namespace

TEST(Project, ZipBombIsRefusedBeforeInflating) {
    // 16 MiB of zeros packs ~1000:1: refused by the ratio limit from the directory alone.
    const QByteArray bomb = zipWithZeros("manifest.json", 16 << 20);
    ASSERT_LT(bomb.size(), 100 * 1024);
    auto p = readProject(bomb, "bomb.scalex");
    ASSERT_FALSE(p);
    EXPECT_EQ(p.error().toString().substr(0, 50), "bomb.scalex: refused zip entry 'manifest.json': co");
    EXPECT_NE(p.error().message.find("(zip bomb?)"), std::string::npos) << p.error().message;

    // An entry above the size limit, whatever its ratio.
    ProjectLimits small;
    small.maxEntryBytes = 1 << 20;
    auto q = readProject(zipWithZeros("runs/big.csv", 2 << 20), "big.scalex", small);
    ASSERT_FALSE(q);
    EXPECT_EQ(q.error().toString(),
              "big.scalex: refused zip entry 'runs/big.csv': it inflates to 2097152 bytes, above the limit of 1048576");
}

TEST(Project, EntryThatInflatesBeyondItsHeaderIsRefused) {
    // The directory claims 100 bytes; the data inflates to 64 KiB.
    QByteArray bytes = zipWithZeros("manifest.json", 64 << 10);
    auto patch = [&](qsizetype at) {  // little-endian uint32 size field
        bytes[at] = 100;
        bytes[at + 1] = bytes[at + 2] = bytes[at + 3] = 0;
    };
    patch(22);  // local header: uncompressed size
    const qsizetype central = bytes.lastIndexOf(QByteArray("PK\x01\x02", 4));
    ASSERT_GT(central, 0);
    patch(central + 24);  // central directory: uncompressed size
    auto p = readProject(bytes, "liar.scalex");
    ASSERT_FALSE(p);
    EXPECT_EQ(p.error().file, "liar.scalex/manifest.json");
}

TEST(Project, RecentFilesAndLastSession) {
    QTemporaryDir dir;
    QSettings s(dir.filePath("scalex.ini"), QSettings::IniFormat);
    EXPECT_TRUE(recentProjects(s).isEmpty());
    EXPECT_FALSE(lastSession(s));
    for (int i = 0; i < 12; ++i) addRecentProject(s, dir.filePath(QStringLiteral("p%1.scalex").arg(i)));
    addRecentProject(s, dir.filePath("p5.scalex"));
    QStringList r = recentProjects(s);
    ASSERT_EQ(r.size(), kMaxRecentProjects);
    EXPECT_EQ(r.front(), dir.filePath("p5.scalex"));
    EXPECT_EQ(r[1], dir.filePath("p11.scalex"));
    EXPECT_FALSE(r.contains(dir.filePath("p0.scalex")));  // the oldest fell off
    EXPECT_EQ(r.count(dir.filePath("p5.scalex")), 1);
    removeRecentProject(s, dir.filePath("p5.scalex"));
    EXPECT_EQ(recentProjects(s).front(), dir.filePath("p11.scalex"));

    const LastSession session{dir.filePath("p11.scalex"), "isoflop", QByteArray("geo\0metry", 9), QByteArray("state")};
    saveLastSession(s, session);
    s.sync();
    QSettings reopened(dir.filePath("scalex.ini"), QSettings::IniFormat);
    EXPECT_EQ(lastSession(reopened), session);
    EXPECT_EQ(recentProjects(reopened).size(), kMaxRecentProjects - 1);
}

// ------------------------------------------------------------------------------------------
// Exports

TEST(Export, NumbersAreWrittenAsThePaperWritesThem) {
    EXPECT_EQ(formatScientific(1.78e20), "1.78e20");
    EXPECT_EQ(formatScientific(1.3e18), "1.3e18");
    EXPECT_EQ(formatScientific(6e18), "6e18");
    EXPECT_EQ(formatScientific(9.996e20), "1e21");
    EXPECT_EQ(formatCount(2.28e10), "22.8B");
    EXPECT_EQ(formatCount(406856896), "407M");
    EXPECT_EQ(formatCount(4.06e8), "406M");
    EXPECT_EQ(formatCount(1.03e12), "1.03T");
    EXPECT_EQ(formatCount(9.82e11), "982B");
    EXPECT_EQ(formatCount(1.5e10), "15B");
    EXPECT_EQ(formatCount(999.7e6), "1B");
    // Every printed number of the compute-optimal tables comes back from its value.
    int checked = 0;
    for (const auto& r : paper().optimalConfigs) {
        EXPECT_EQ(formatCount(r.params), r.paramsLabel);
        EXPECT_EQ(formatCount(r.tokens), r.tokensLabel);
        ++checked;
    }
    EXPECT_EQ(checked, 88);
}

TEST(Export, LatexIsBooktabsLikeTheAppendix) {
    ExportTable t = optimalConfigExport(paper().optimalConfigs, Family::Transformer, 8192);
    t.label = "tab:optimal";
    ASSERT_EQ(t.rows.size(), 11u);
    const std::string latex = toLatex(t).toStdString();
    EXPECT_NE(latex.find("\\begin{tabular}{rrrr}\n\\toprule\n\\#Params & \\#FLOPs & \\#Tokens & Token/Param Ratio \\\\\n\\midrule\n"),
              std::string::npos)
        << latex;
    // The rows of tab:estimated_optimal_flops_tokens_powerlaw (Transformer half), as printed.
    EXPECT_NE(latex.find("100M & 3.24e18 & 4.17B & 41.7 \\\\\n"), std::string::npos) << latex;
    EXPECT_NE(latex.find("1B & 1.78e20 & 22.8B & 22.8 \\\\\n"), std::string::npos);
    EXPECT_NE(latex.find("175B & 1.42e24 & 1.03T & 5.9 \\\\\n\\bottomrule\n\\end{tabular}\n"), std::string::npos);
    EXPECT_NE(latex.find("\\label{tab:optimal}"), std::string::npos);
    EXPECT_EQ(latexEscape("a_b & 50% #1"), "a\\_b \\& 50\\% \\#1");
}

// Symbols read as words in CSV ("alpha") and as the paper's math in LaTeX.
TEST(Export, SymbolsAreMathInLatexAndWordsInCsv) {
    EXPECT_EQ(latexSymbol("log A"), "$\\log A$");
    EXPECT_EQ(latexSymbol("alpha"), "$\\alpha$");
    EXPECT_EQ(latexSymbol("N_opt  Lambda"), "$N\\_opt \\Lambda$");
    EXPECT_EQ(latexSymbol("alphabet"), "$alphabet$") << "only whole words are commands";
    EXPECT_EQ(latexSymbol("N*(H)"), "$N^{*}(H)$");
    EXPECT_EQ(latexSymbol("a^b~c\\"), "$a\\wedge{}b\\sim{}c\\backslash{}$") << "nothing that breaks math mode";
    EXPECT_EQ(latexSymbol(""), "");
    ExportTable t;
    t.columns = {{"parameter", "Parameter", CellStyle::Symbol}, {"estimate", "", CellStyle::Fixed3}};
    t.rows = {{std::string("log E"), 0.5}, {std::string("gamma"), 0.25}};
    const std::string latex = toLatex(t).toStdString();
    EXPECT_NE(latex.find("\\begin{tabular}{lr}"), std::string::npos) << latex;
    EXPECT_NE(latex.find("$\\log E$ & 0.500 \\\\"), std::string::npos) << latex;
    EXPECT_NE(latex.find("$\\gamma$ & 0.250 \\\\"), std::string::npos) << latex;
    EXPECT_EQ(toCsv(t).toStdString(), "parameter,estimate\nlog E,0.5\ngamma,0.25\n");
}

TEST(Export, CsvKeepsFullPrecisionAndQuotes) {
    ExportTable t;
    t.columns = {{"name", "", CellStyle::Text}, {"flops", "", CellStyle::Scientific}};
    t.rows = {{std::string("a, \"b\""), 1.0 / 3.0}, {std::monostate{}, 1.78e20}};
    EXPECT_EQ(toCsv(t).toStdString(), "name,flops\n\"a, \"\"b\"\"\",0.3333333333333333\n,1.78e+20\n");
}

TEST(Export, JsonRecordsAreFlatObjectsPandasReads) {
    const Project p = makeExampleProject(paper());
    const ExportTable t = runTableExport(p.tables[1].table);
    const QJsonDocument doc = QJsonDocument::fromJson(toRecordsJson(t));
    ASSERT_TRUE(doc.isArray());
    const QJsonArray records = doc.array();
    ASSERT_EQ(records.size(), static_cast<qsizetype>(p.tables[1].table.runs.size()));
    const QStringList keys = records.first().toObject().keys();
    EXPECT_TRUE(keys.contains("run_id") && keys.contains("num_params") && keys.contains("val_loss"));
    for (const auto& v : records) {
        ASSERT_TRUE(v.isObject());
        const QJsonObject o = v.toObject();
        EXPECT_EQ(o.keys(), keys);  // same columns in every record
        for (const auto& cell : o) EXPECT_FALSE(cell.isObject() || cell.isArray());  // flat
    }
    const QJsonObject first = records.first().toObject();
    const scalex::data::Run& run = p.tables[1].table.runs.front();
    EXPECT_EQ(first.value("run_id").toString().toStdString(), run.runId);
    EXPECT_EQ(first.value("num_params").toDouble(), run.params);
    EXPECT_EQ(first.value("val_loss").toDouble(), run.valLoss);
    EXPECT_TRUE(first.value("train_loss").isNull());  // unknown -> null (NaN in pandas)
    // The records read back as a run table.
    auto back = parseRunTable(toRecordsJson(t), "runs.json");
    ASSERT_TRUE(back) << back.error().toString();
    ASSERT_EQ(back->runs.size(), p.tables[1].table.runs.size());
    expectSameRun(run, back->runs.front());
}

TEST(Project, DescribedSchedulesOfRunsRoundTripAndBadOnesNameTheirKey) {
    Project p = projectWithSets();
    p.curves[0].schedules["r2"] = "wsd:peak=0.0003,steps=100,warmup=10,cooldown=0.2,decay=sqrt";
    auto bytes = writeProject(p);
    ASSERT_TRUE(bytes) << bytes.error().toString();
    auto back = readProject(*bytes, "schedules.scalex");
    ASSERT_TRUE(back) << back.error().toString();
    ASSERT_EQ(back->curves.size(), 1u);
    EXPECT_EQ(back->curves[0].schedules, p.curves[0].schedules);
    auto again = writeProject(*back);
    ASSERT_TRUE(again);
    EXPECT_EQ(manifestOf(*again)["curves"], manifestOf(*bytes)["curves"]) << "the same sets on a second save";
    EXPECT_EQ(manifestOf(*bytes)["curves"].toArray()[0].toObject()["schedules"].toObject()["r2"].toString().toStdString(),
              p.curves[0].schedules["r2"]);
    // A set without schedules writes no key: its manifest is as before.
    auto plain = writeProject(projectWithSets());
    ASSERT_TRUE(plain);
    EXPECT_FALSE(manifestOf(*plain)["curves"].toArray()[0].toObject().contains("schedules"));

    // A schedule of a run the set does not have, or one that is not a description, names its key.
    const auto withSchedules = [&](const QJsonValue& schedules) {
        QJsonObject manifest = manifestOf(*bytes);
        QJsonArray curves = manifest["curves"].toArray();
        QJsonObject set = curves[0].toObject();
        set["schedules"] = schedules;
        curves[0] = set;
        manifest["curves"] = curves;
        return readProject(withEntry(*bytes, "manifest.json", QJsonDocument(manifest).toJson()), "hostile.scalex");
    };
    auto bad = withSchedules(QJsonObject{{"ghost", "constant:peak=1e-3,steps=10"}});
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().toString(), "hostile.scalex/manifest.json, column 'curves[0].schedules.ghost': the set has no curve of run 'ghost'");
    bad = withSchedules(QJsonObject{{"r1", 3}});
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().toString().find("column 'curves[0].schedules.r1': expected a schedule description"), std::string::npos)
        << bad.error().toString();
    bad = withSchedules(QJsonArray{"wsd"});
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().toString().find("column 'curves[0].schedules': expected an object"), std::string::npos) << bad.error().toString();
}
