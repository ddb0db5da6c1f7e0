#include "app/figures/ViewFigure.h"

#include <QGraphicsScene>
#include <QtCharts/QChart>

#include "app/figures/PlotChart.h"
#include "app/figures/views/Figures.h"
#include "core/analysis/RunSelection.h"
#include "core/analysis/Study.h"

namespace scalex::figures {

ViewFigure::ViewFigure() = default;

std::vector<ViewFigure::ShownTable> ViewFigure::shownTables() const {
    ShownTable table;
    table.name = QStringLiteral("shownTable");
    table.headers = shownHeaders();
    if (table.headers.isEmpty()) return {};
    for (QStringList& cells : shownRows()) table.rows.push_back({std::move(cells)});
    return {table};
}

void ViewFigure::noteScale(const FigureInput& in, bool computeSuffices) {
    scaleNotice_.clear();
    if (!in.study) return;
    const auto why = analysis::missingScaleColumns(in.study->runs(), in.study->settings().scope.filter(),
                                                   computeSuffices ? analysis::ScaleNeed::Compute : analysis::ScaleNeed::NAndD);
    if (why) scaleNotice_ = QString::fromStdString(*why);
}

ViewFigure::~ViewFigure() {
    // Charts shown by a window belong to its chart views' scenes; the others go with the figure
    // (those in the figure's own scenes with them).
    for (QChart* chart : made_)
        if (!chart->scene()) delete chart;
}

PlotChart* ViewFigure::makeChart() {
    auto* chart = new PlotChart();
    made_.push_back(chart);
    return chart;
}

QChart* ViewFigure::makePlainChart() {
    auto* chart = new QChart();
    made_.push_back(chart);
    return chart;
}

QStringList ViewFigure::setControls(const QJsonObject& incoming, const FigureInput& in) {
    refresh(in);
    const QJsonObject values = controls_.withCurrentNames(incoming);
    QStringList notes, names;
    QStringList unused = values.keys();
    for (std::size_t i = 0; i < controls_.list().size(); ++i) {
        const QString name = controls_.list()[i].name;
        names << name;
        if (!values.contains(name)) continue;
        unused.removeAll(name);
        QString note;
        if (!controls_.set(name, values.value(name), &note)) notes << note;
        refresh(in);
    }
    for (const QString& name : unused)
        notes << QStringLiteral("the view has no control '%1' (it has %2)").arg(name, names.isEmpty() ? QStringLiteral("none") : names.join(", "));
    return notes;
}

void ViewFigure::placeInScenes(const QSizeF& size) {
    for (QChart* chart : made_) {
        if (chart->scene()) continue;
        auto scene = std::make_unique<QGraphicsScene>();
        scene->addItem(chart);
        chart->resize(size);
        scenes_.push_back(std::move(scene));
    }
}

std::shared_ptr<const data::RunTable> runsForJob(const FigureInput& in) {
    if (in.runsSnapshot) return in.runsSnapshot();
    return std::make_shared<const data::RunTable>(in.study->runs());
}

QStringList figureViews() {
    QStringList views;
    for (const FigureEntry& e : figureRegistry())
        if (e.make) views << e.id;
    return views;
}

QString unknownViewError(const QString& view) {
    return QStringLiteral("--view: unknown view '%1' (expected one of %2)").arg(view, figureViews().join(", "));
}

std::vector<std::pair<QString, QStringList>> viewTables() {
    std::vector<std::pair<QString, QStringList>> out;
    for (const FigureEntry& e : figureRegistry())
        if (!e.tables.isEmpty()) out.emplace_back(e.id, e.tables);
    return out;
}

QStringList tableViews() {
    QStringList views;
    for (const auto& [view, tables] : viewTables()) views << view;
    return views;
}

std::unique_ptr<ViewFigure> makeFigure(const QString& id) { return makeViewFigure(id); }

}  // namespace scalex::figures
