#include "app/figures/views/Figures.h"

#include <QObject>

#include "app/figures/views/ContextFigure.h"
#include "app/figures/views/Explain.h"
#include "app/figures/views/IsoFlopFigure.h"
#include "app/figures/views/FlopBreakdownFigure.h"
#include "app/figures/views/InferenceFigure.h"
#include "app/figures/views/LawsFigure.h"
#include "app/figures/views/LossCurvesFigure.h"
#include "app/figures/views/ScheduleFigure.h"
#include "app/figures/views/OverTrainingFigure.h"
#include "app/figures/views/LossSurfaceFigure.h"
#include "app/figures/views/OptimalFigure.h"
#include "app/figures/views/ParetoFigure.h"
#include "app/figures/views/RooflineFigure.h"

namespace scalex::figures {

namespace {

template <class Figure>
std::function<std::unique_ptr<ViewFigure>()> maker() {
    return [] { return std::make_unique<Figure>(); };
}

// A layout with what `set` changes from the defaults.
ViewLayout layout(const std::function<void(ViewLayout&)>& set) {
    ViewLayout l;
    set(l);
    return l;
}

// The registry, extended by registerFigure().
std::vector<FigureEntry>& entries() {
    static std::vector<FigureEntry> entries{
        {"runs", QObject::tr("Runs"), {}, {"runs"}, {}, {}},
        {"pareto", QObject::tr("Pareto front"), maker<ParetoFigure>(), {"frontier"}, explainPareto, {}},
        {"curves", QObject::tr("Loss curves"), maker<LossCurvesFigure>(), {}, explainLossCurves, {}},
        {"schedules", QObject::tr("Schedules"), maker<ScheduleFigure>(), {}, explainSchedules,
         layout([](ViewLayout& l) {
             l.busy = QObject::tr("Fitting the law to the loss curves…");
             l.rows = {{"run", "described"}};
             l.checkTyping = true;
         })},
        {"surface", QObject::tr("Loss surface"), maker<LossSurfaceFigure>(), {"fit"}, explainLossSurface,
         layout([](ViewLayout& l) {
             l.groups = {{"series", "context", "set", "huber_delta", "gamma", "grid", "checkpoints"}};
             l.side = true;
             l.stackWidth = 440;
         })},
        {"overtraining", QObject::tr("Over-training"), maker<OverTrainingFigure>(), {"slopes"}, explainOverTraining,
         layout([](ViewLayout& l) {
             l.widestChoices = true;
             l.busy = QObject::tr("Fitting the power laws…");
         })},
        {"isoflop", QObject::tr("IsoFLOP"), maker<IsoFlopFigure>(), {"laws", "optima", "contexts"}, explainIsoFlop,
         layout([](ViewLayout& l) {
             l.below = {"pick", "budget"};
             l.stackWidth = 420;
             l.busy = QObject::tr("Fitting the IsoFLOP profiles…");
         })},
        {"context", QObject::tr("Context length"), maker<ContextFigure>(), {"optima"}, explainContext, layout([](ViewLayout& l) { l.lead = "context"; })},
        {"optimal", QObject::tr("Compute-optimal"), maker<OptimalFigure>(), {"sizes", "query", "methods"}, explainOptimal,
         layout([](ViewLayout& l) {
             l.groups = {{"method", "mode", "value", "reference", "context", "overtrain", "inference", "chart"}};
             l.side = true;
             l.labelsAbove = true;
             l.sliders = {"overtrain"};
             l.widestChoices = true;
             l.stackWidth = 460;
         })},
        {"breakdown", QObject::tr("FLOP breakdown"), maker<FlopBreakdownFigure>(), {}, explainFlopBreakdown,
         layout([](ViewLayout& l) { l.groups = {{"transformerPreset", "xlstmPreset"}, {"quantity", "shares"}}; })},
        {"roofline", QObject::tr("Roofline"), maker<RooflineFigure>(), {}, explainRoofline, {}},
        {"inference", QObject::tr("Inference"), maker<InferenceFigure>(), {"fits"}, explainInference,
         layout([](ViewLayout& l) {
             l.chartsPerRow = 2;
             l.aside = {"budget", "prefill", "factor", "loss"};
             l.asideTitle = QObject::tr("Deployment questions");
             l.stackWidth = 350;
         })},
        {"laws", QObject::tr("Laws"), maker<LawsFigure>(), {"laws", "params", "predictions"}, explainLaws,
         layout([](ViewLayout& l) {
             for (int k = 0; k < LawsFigure::kLaws; ++k) l.rows.push_back({LawsFigure::lawKey(k), LawsFigure::formulaKey(k), LawsFigure::paramsKey(k)});
             l.checkTyping = true;
             l.fieldSample = QStringLiteral("N<1e9, D<1e11");
             l.tableRows = LawsFigure::kLaws;
             l.busy = QObject::tr("Fitting the laws…");
         })},
    };
    return entries;
}

}  // namespace

const std::vector<FigureEntry>& figureRegistry() { return entries(); }

void registerFigure(FigureEntry entry) { entries().push_back(std::move(entry)); }

const FigureEntry* figureEntry(const QString& id) {
    for (const FigureEntry& e : figureRegistry())
        if (e.id == id) return &e;
    return nullptr;
}

std::unique_ptr<ViewFigure> makeViewFigure(const QString& id) {
    for (const FigureEntry& e : figureRegistry())
        if (e.id == id && e.make) return e.make();
    return nullptr;
}

}  // namespace scalex::figures
