#include "app/figures/views/Figures.h"

#include "app/figures/views/ContextFigure.h"
#include "app/figures/views/IsoFlopFigure.h"
#include "app/figures/views/FlopBreakdownFigure.h"
#include "app/figures/views/InferenceFigure.h"
#include "app/figures/views/LawsFigure.h"
#include "app/figures/views/LossCurvesFigure.h"
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

}  // namespace

const std::vector<FigureEntry>& figureRegistry() {
    static const std::vector<FigureEntry> entries{
        {"runs", {}, {"runs"}},
        {"pareto", maker<ParetoFigure>(), {"frontier"}},
        {"curves", maker<LossCurvesFigure>(), {}},
        {"surface", maker<LossSurfaceFigure>(), {"fit"}},
        {"overtraining", maker<OverTrainingFigure>(), {"slopes"}},
        {"isoflop", maker<IsoFlopFigure>(), {"laws", "optima", "contexts"}},
        {"context", maker<ContextFigure>(), {"optima"}},
        {"optimal", maker<OptimalFigure>(), {"sizes", "query", "methods"}},
        {"breakdown", maker<FlopBreakdownFigure>(), {}},
        {"roofline", maker<RooflineFigure>(), {}},
        {"inference", maker<InferenceFigure>(), {"fits"}},
        {"laws", maker<LawsFigure>(), {"laws", "params", "predictions"}},
    };
    return entries;
}

std::unique_ptr<ViewFigure> makeViewFigure(const QString& id) {
    for (const FigureEntry& e : figureRegistry())
        if (e.id == id && e.make) return e.make();
    return nullptr;
}

}  // namespace scalex::figures
