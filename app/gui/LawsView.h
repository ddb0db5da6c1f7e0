#pragma once
// The Laws view: the figure of app/figures/views/LawsFigure (laws compared by what they predict of
// held-out runs), a row per law to choose a shipped law or type a formula and its parameters with
// the error under the fields as they are typed, the split and fit settings, and the table of the
// laws side by side. The fits run off the UI thread, and only for laws that compile.
#include <QJsonObject>
#include <any>
#include <array>
#include <memory>

#include "app/figures/views/LawsFigure.h"
#include "app/gui/ControlWidgets.h"
#include "app/gui/JobRunner.h"
#include "app/gui/ViewPanel.h"

class QLabel;
class QLineEdit;
class QTableWidget;

namespace scalex::gui {

class Session;
class PlotView;

class LawsView : public ViewPanel {
    Q_OBJECT
public:
    explicit LawsView(Session* session, QWidget* parent = nullptr);
    ~LawsView() override;
    QString viewId() const override { return QStringLiteral("laws"); }
    QString explainHtml() const override;
    QChart* primaryChart() const override;
    std::vector<QChart*> charts() const override;
    std::vector<ViewTable> tables() override;
    TablesJob tablesJob() override;
    void computeNow() override;
    QString problem() const override { return figure_->problem(); }
    figures::ViewFigure* figure() const override { return figure_.get(); }
    figures::LawsFigure* lawsFigure() const { return figure_.get(); }
    QStringList applyControls(const QJsonObject& values) override;
    // The text under law k's fields (its error, or empty) and under the split's.
    QString lawErrorText(int k) const;
    QString splitErrorText() const;
    // The table of the laws side by side, as shown.
    QTableWidget* lawTable() const { return table_; }

private:
    // A control changed: fit again when it changes what is fitted, else draw again.
    void controlChanged();
    // What is typed in a formula or parameter field, checked at each key (nothing is fitted).
    void checkTyping(QLineEdit* edit);
    void showErrors();
    void recompute();
    void redraw();
    // The controls' values that change a fit (all but the chart's axis).
    QJsonObject fitValues() const;
    JobRunner<figures::LawsFigure::Answer>* jobs_;
    Session* session_;
    std::unique_ptr<figures::LawsFigure> figure_;
    ControlBinding* controls_;
    PlotView* views_[2];
    std::array<QLabel*, figures::LawsFigure::kLaws> lawErrors_{};
    QLabel* splitError_;
    QLabel* note_;
    QTableWidget* table_;
    QJsonObject fitted_;
};

}  // namespace scalex::gui
