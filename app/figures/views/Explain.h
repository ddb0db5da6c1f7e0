#pragma once
// The Explain pane's text of each figure (the registry's, Figures.cpp): the formula, the axes, and
// the live numbers of the figure as drawn now. HTML, made with no window.
#include <QString>

namespace scalex::figures {

class ViewFigure;
struct FigureInput;

QString explainLossCurves(const ViewFigure& figure, const FigureInput& in);
QString explainPareto(const ViewFigure& figure, const FigureInput& in);
QString explainOverTraining(const ViewFigure& figure, const FigureInput& in);
QString explainIsoFlop(const ViewFigure& figure, const FigureInput& in);
QString explainContext(const ViewFigure& figure, const FigureInput& in);
QString explainFlopBreakdown(const ViewFigure& figure, const FigureInput& in);
QString explainLossSurface(const ViewFigure& figure, const FigureInput& in);
QString explainRoofline(const ViewFigure& figure, const FigureInput& in);
QString explainInference(const ViewFigure& figure, const FigureInput& in);
QString explainLaws(const ViewFigure& figure, const FigureInput& in);
QString explainOptimal(const ViewFigure& figure, const FigureInput& in);

}  // namespace scalex::figures
