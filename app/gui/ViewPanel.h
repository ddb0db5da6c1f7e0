#pragma once
// Base of every view of the explorer window: a widget with an id (used for layouts, exports
// and `scalex render --view`), a title, and the "Explain" text for the side pane.
#include <QString>
#include <QWidget>
#include <vector>

class QChart;

namespace scalex::gui {

class ViewPanel : public QWidget {
    Q_OBJECT
public:
    using QWidget::QWidget;

    virtual QString viewId() const = 0;
    virtual QString title() const = 0;
    // HTML for the Explain pane: the formula, the axes, and the live numbers of the current state.
    virtual QString explainHtml() const = 0;
    // The main chart of the view, for exports; null for table-only views.
    virtual QChart* primaryChart() const { return nullptr; }
    // Every chart of the view, left to right, for exports (default: the primary chart).
    virtual std::vector<QChart*> charts() const {
        if (QChart* c = primaryChart()) return {c};
        return {};
    }
    // Runs the view's heavy work (fits) to completion now, for headless renders and tests.
    virtual void computeNow() {}

signals:
    // Emitted when what the Explain pane shows has changed.
    void explainChanged();
};

}  // namespace scalex::gui
