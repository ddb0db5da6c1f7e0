#include "app/gui/FigureExport.h"

#include <QFileInfo>
#include <QtCharts/QChart>

#include "app/figures/Theme.h"
#include "app/gui/FigureNames.h"
#include "app/gui/MainWindow.h"
#include "app/gui/ViewPanel.h"

namespace scalex::gui {

std::unique_ptr<MainWindow> openHeadless(const QString& project, bool dark, QString* error) {
    Theme::setCurrent(dark ? Theme::dark() : Theme::light());
    auto window = std::make_unique<MainWindow>();
    window->setAttribute(Qt::WA_DontShowOnScreen, true);
    window->resize(1400, 900);
    window->show();
    const bool opened = project.isEmpty() ? window->openExample(false) : window->openPath(project, false);
    if (!opened) {
        *error = window->lastError();
        return nullptr;
    }
    return window;
}

bool exportViewTable(ViewPanel* panel, const QString& tableId, const QString& out, QString* error) {
    const QString suffix = QFileInfo(out).suffix().toLower();
    if (!tableSuffixes().contains(suffix)) {
        *error = QStringLiteral("'%1' must end in .tex (LaTeX booktabs), .csv or .json (records)").arg(out);
        return false;
    }
    return exportViewTable(panel->tables(), panel->viewId(), tableId, out, error);
}


bool exportPanel(ViewPanel* panel, const QString& out, const FigureStyle& style, QString* error) {
    const std::vector<QChart*> charts = panel->charts();
    if (charts.empty() && QStringList{"pdf", "svg", "png"}.contains(QFileInfo(out).suffix().toLower())) {
        *error = QStringLiteral("the view '%1' has no chart").arg(panel->viewId());
        return false;
    }
    return figures::writeFigure(charts, panel->viewId(), out, style, error);
}

bool exportViewTable(const std::vector<ViewTable>& tables, const QString& viewId, const QString& tableId, const QString& out,
                     QString* error) {
    return figures::writeTable(tables, viewId, tableId, out, error);
}

}  // namespace scalex::gui
