#pragma once
// The IsoFLOP view (Figs. 4 and 5): the figure of app/figures/views/IsoFlopFigure, its controls,
// its fits run in a job and the bootstrap bands of its laws in a second one once the fits are drawn.
#include <QFutureWatcher>
#include <any>
#include <atomic>
#include <memory>
#include <optional>

#include "app/figures/views/IsoFlopFigure.h"
#include "app/gui/ControlWidgets.h"
#include "app/gui/JobRunner.h"
#include "app/gui/ViewPanel.h"

class QHBoxLayout;
class QLabel;

namespace scalex::gui {

class Session;
class PlotView;

class IsoFlopView : public ViewPanel {
    Q_OBJECT
public:
    explicit IsoFlopView(Session* session, QWidget* parent = nullptr);
    ~IsoFlopView() override;
    QString viewId() const override { return QStringLiteral("isoflop"); }
    QString title() const override { return tr("IsoFLOP"); }
    QString explainHtml() const override;
    QChart* primaryChart() const override;
    std::vector<QChart*> charts() const override;
    void computeNow() override;
    // The power laws N*(H), D*(H) with 95 % bootstrap intervals, the optimum of every profile, and
    // the laws fitted at every context length of the runs.
    std::vector<ViewTable> tables() override;
    // The same off the UI thread (intervals not yet known are bootstrapped by the job).
    TablesJob tablesJob() override;
    // The fit of the first (false) or second (true) series shown: by default the study's
    // Transformer and xLSTM where present, else the first two series with IsoFLOP runs.
    const fit::IsoFlopResult& result(bool second) const { return figure_->result(second); }
    const std::string& seriesShown(bool second) const { return figure_->seriesShown(second); }
    // The profile at the picked budget of the first or second series shown (none when no budget is picked).
    const std::optional<analysis::BudgetProfile>& picked(bool second) const { return figure_->picked(second); }
    figures::ViewFigure* figure() const override { return figure_.get(); }
    QStringList applyControls(const QJsonObject& values) override;

private:
    // A control changed: the fits again when it is one they depend on, else a redraw.
    void controlChanged();
    // Starts the fits in a job (the answer is drawn when it comes).
    void recompute();
    void redraw();
    // A chart view for each chart the figure made for the Fig. 5 layout.
    void addContextViews();
    Session* session_;
    std::unique_ptr<figures::IsoFlopFigure> figure_;
    ControlBinding* controls_;
    PlotView* profileView_;
    PlotView* lawView_;
    QHBoxLayout* chartRow_;
    std::vector<PlotView*> contextViews_;
    QLabel* budgetValue_;
    QLabel* summary_;
    JobRunner<figures::IsoFlopFigure::Answer>* fits_;   // the fits; new fits replace those under way, and their bands
    JobRunner<figures::IsoFlopFigure::Bands>* bands_;  // the bootstrap bands of the fits shown, once they are drawn
    QJsonObject fitControls_;  // the controls of the fits asked for last
};

}  // namespace scalex::gui
