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

std::unique_ptr<ViewFigure> makeViewFigure(const QString& id) {
    if (id == QLatin1String("pareto")) return std::make_unique<ParetoFigure>();
    if (id == QLatin1String("curves")) return std::make_unique<LossCurvesFigure>();
    if (id == QLatin1String("overtraining")) return std::make_unique<OverTrainingFigure>();
    if (id == QLatin1String("context")) return std::make_unique<ContextFigure>();
    if (id == QLatin1String("surface")) return std::make_unique<LossSurfaceFigure>();
    if (id == QLatin1String("isoflop")) return std::make_unique<IsoFlopFigure>();
    if (id == QLatin1String("optimal")) return std::make_unique<OptimalFigure>();
    if (id == QLatin1String("breakdown")) return std::make_unique<FlopBreakdownFigure>();
    if (id == QLatin1String("roofline")) return std::make_unique<RooflineFigure>();
    if (id == QLatin1String("laws")) return std::make_unique<LawsFigure>();
    if (id == QLatin1String("inference")) return std::make_unique<InferenceFigure>();
    return nullptr;
}

}  // namespace scalex::figures
