#pragma once
// Base of every view of the explorer window: a widget with an id (used for layouts, exports
// and `scalex render --view`), a title, and the "Explain" text for the side pane.
#include <QBoxLayout>
#include <QEvent>
#include <QGraphicsView>
#include <QJsonObject>
#include <QString>
#include <QWidget>
#include <functional>
#include <utility>
#include <vector>

#include "app/figures/FigureWriter.h"
#include "app/figures/ViewFigure.h"
#include "app/figures/views/Figures.h"
#include "app/gui/FigureNames.h"
#include "core/analysis/FitTypes.h"
#include "core/data/Export.h"

class QChart;

namespace scalex::gui {

// A table a view shows or derives from what it shows, for export as LaTeX, CSV or JSON.
using ViewTable = figures::FigureTable;

class ViewPanel : public QWidget {
    Q_OBJECT
public:
    using QWidget::QWidget;

    virtual QString viewId() const = 0;
    // The registry's title of the view (app/figures/views/Figures.h).
    virtual QString title() const {
        const figures::FigureEntry* entry = figures::figureEntry(viewId());
        return entry ? entry->title : viewId();
    }
    // HTML for the Explain pane: the formula, the axes, and the live numbers of the current state.
    virtual QString explainHtml() const = 0;
    // The main chart of the view, for exports; null for table-only views.
    virtual QChart* primaryChart() const { return nullptr; }
    // Every chart of the view, left to right, for exports (default: the primary chart).
    virtual std::vector<QChart*> charts() const {
        if (QChart* c = primaryChart()) return {c};
        return {};
    }
    // The view's tables, first the one exported by default (none for views without one). Reflects
    // what the view shows now (its settings, filters, selection); may compute bootstrap intervals.
    virtual std::vector<ViewTable> tables() { return {}; }
    // The work of tables() as a job for a worker thread, for views whose tables fit or bootstrap:
    // made on the UI thread, it holds copies of what it reads (or futures of the view's own work)
    // and gives what tables() gives. Stops early, returning nothing, when `control` is cancelled.
    // Empty for views whose tables are quick (the window calls tables()).
    using TablesJob = std::function<std::vector<ViewTable>(const fit::FitControl& control)>;
    virtual TablesJob tablesJob() { return {}; }
    // The view's analyses are under way (tablesJob() would wait for them on the calling thread): the
    // window lets them end in its event loop first.
    virtual bool computing() const { return false; }
    // Runs the view's heavy work (fits) to completion now, for headless renders and tests.
    virtual void computeNow() {}
    // Why the view shows no results for its present settings (a query it cannot answer, too few
    // runs to fit); empty when it shows them. Headless renders fail with it rather than write an
    // empty figure or table.
    virtual QString problem() const { return {}; }
    // The view's figure (app/figures), for views that draw one: its controls are the view's
    // (recipes, lessons and `--set` read and set them there), and a headless render of it draws
    // what the view shows.
    virtual figures::ViewFigure* figure() const { return nullptr; }
    // Sets controls of the figure by name as a person would (Controls::set: keys, text, values),
    // shows them and brings the view up to date; a note for each that could not be set.
    virtual QStringList applyControls(const QJsonObject& values) {
        (void)values;
        return {};
    }

signals:
    // Emitted when what the Explain pane shows has changed.
    void explainChanged();

protected:
    // Drawing every run of a large project takes long (Qt Charts makes a graphics item per
    // point), so a view on a tab the user cannot see draws when it is shown next. Called first in
    // a view's redraw(): true means "deferred" and `redraw` runs from the next showEvent. A
    // window that is never shown (headless renders) draws at once, as before. Views that also
    // defer their fits (a recompute that ends in a redraw) give it a higher `weight`: a deferred
    // redraw does not replace a deferred recompute.
    bool deferWhileHidden(std::function<void()> redraw, int weight = 0) {
        if (isVisible() || !window()->isVisible()) return false;
        if (!pendingRedraw_ || weight >= pendingWeight_) {
            pendingRedraw_ = std::move(redraw);
            pendingWeight_ = weight;
        }
        return true;
    }
    void showEvent(QShowEvent* event) override {
        QWidget::showEvent(event);
        if (auto redraw = std::exchange(pendingRedraw_, {})) redraw();
    }
    // Charts side by side in `row` are stacked instead when each would be narrower than
    // `minWidth` (a projector at 1024 px with the side pane open): their legends and axis titles
    // stay whole, and the view scrolls down rather than sideways.
    void stackWhenNarrow(QBoxLayout* row, int minWidth = 480) {
        stacked_.push_back({row, minWidth});
        restack();
    }
    void resizeEvent(QResizeEvent* event) override {
        QWidget::resizeEvent(event);
        restack();
    }
    void changeEvent(QEvent* event) override {
        QWidget::changeEvent(event);
        if (event->type() == QEvent::FontChange) restack();
    }

protected:
    // Lays the rows of stackWhenNarrow() out for the present width: a row changes direction when the
    // width crosses its limit, and only then do its charts' heights change; `chartsAdded`: also for
    // charts added to a row since (a resize, the common case, looks for none).
    void restack(bool chartsAdded = false) {
        for (const auto& [row, minWidth] : stacked_) {
            int shown = 0;
            for (int i = 0; i < row->count(); ++i)
                if (QWidget* w = row->itemAt(i)->widget(); w && !w->isHidden()) ++shown;
            // `minWidth` is for the normal 10 pt font; larger fonts (presentation, zoom) need more.
            const double scale = std::max(1.0, font().pointSizeF() / 10.0);
            const auto direction = shown > 1 && width() < shown * minWidth * scale ? QBoxLayout::TopToBottom : QBoxLayout::LeftToRight;
            if (row->direction() == direction && !chartsAdded) continue;
            row->setDirection(direction);
            // Stacked, each chart keeps a readable height (the view scrolls down), also one in a
            // column of the row (beside tables).
            for (int i = 0; i < row->count(); ++i) {
                QWidget* item = row->itemAt(i)->widget();
                if (!item) continue;
                QList<QGraphicsView*> charts = item->findChildren<QGraphicsView*>();
                if (auto* w = qobject_cast<QGraphicsView*>(item)) charts << w;
                for (QGraphicsView* w : charts) {
                    if (!w->property("scalexOwnMinHeight").isValid()) w->setProperty("scalexOwnMinHeight", w->minimumHeight());
                    const int own = w->property("scalexOwnMinHeight").toInt();
                    w->setMinimumHeight(direction == QBoxLayout::TopToBottom ? std::max(own, 420) : own);
                }
            }
        }
    }
private:
    std::function<void()> pendingRedraw_;
    std::vector<std::pair<QBoxLayout*, int>> stacked_;
    int pendingWeight_ = 0;
};

}  // namespace scalex::gui
