#include "app/figures/views/Figures.h"

#include "app/figures/views/FlopBreakdownFigure.h"
#include "app/figures/views/InferenceFigure.h"
#include "app/figures/views/LossCurvesFigure.h"
#include "app/figures/views/ParetoFigure.h"
#include "app/figures/views/RooflineFigure.h"

namespace scalex::figures {

std::unique_ptr<ViewFigure> makeViewFigure(const QString& id) {
    if (id == QLatin1String("pareto")) return std::make_unique<ParetoFigure>();
    if (id == QLatin1String("curves")) return std::make_unique<LossCurvesFigure>();
    if (id == QLatin1String("breakdown")) return std::make_unique<FlopBreakdownFigure>();
    if (id == QLatin1String("roofline")) return std::make_unique<RooflineFigure>();
    if (id == QLatin1String("inference")) return std::make_unique<InferenceFigure>();
    return nullptr;
}

}  // namespace scalex::figures
