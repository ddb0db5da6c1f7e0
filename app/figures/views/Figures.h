#pragma once
// The figure of every view (one file each in this folder), made by the view's id.
#include <QString>
#include <memory>

namespace scalex::figures {

class ViewFigure;

// A new figure of the view `id`; null for an unknown id (ViewFigure.h: makeFigure).
std::unique_ptr<ViewFigure> makeViewFigure(const QString& id);

}  // namespace scalex::figures
