#pragma once
// The chart views over the run table: Pareto front (Fig. 1), over-training slopes (Fig. 3) and
// IsoFLOP profiles with the N*(H), D*(H) power laws (Fig. 4). Their analyses take milliseconds and
// are recomputed whenever the runs, the settings or the selection change.
#include <QFutureWatcher>
#include <optional>

#include "app/gui/ViewPanel.h"
#include "core/fit/Bootstrap.h"
#include "core/fit/IsoFlop.h"
#include "core/fit/OvertrainingSlopes.h"
#include "core/fit/Pareto.h"

class QComboBox;
class QCheckBox;
class QLabel;
class QTableWidget;

namespace scalex::gui {

class Session;
class PlotChart;
class PlotView;

class ParetoView : public ViewPanel {
    Q_OBJECT
public:
    explicit ParetoView(Session* session, QWidget* parent = nullptr);
    QString viewId() const override { return QStringLiteral("pareto"); }
    QString title() const override { return tr("Pareto front"); }
    QString explainHtml() const override;
    QChart* primaryChart() const override;
    const fit::FrontierComparison& comparison() const { return comparison_; }

private:
    void redraw();
    Session* session_;
    PlotChart* chart_;
    PlotView* view_;
    QCheckBox* curves_;
    QLabel* summary_;
    fit::FrontierComparison comparison_;
    int frontierSize_[2] = {0, 0};
};

class OverTrainingView : public ViewPanel {
    Q_OBJECT
public:
    explicit OverTrainingView(Session* session, QWidget* parent = nullptr);
    QString viewId() const override { return QStringLiteral("overtraining"); }
    QString title() const override { return tr("Over-training"); }
    QString explainHtml() const override;
    QChart* primaryChart() const override;
    std::vector<QChart*> charts() const override;

private:
    void redraw();
    Session* session_;
    PlotChart* charts_[2];
    PlotView* views_[2];
    QTableWidget* table_;
    fit::SlopeResult results_[2];
};

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
    const fit::IsoFlopResult& result(bool xlstm) const { return results_[xlstm ? 1 : 0]; }

private:
    void recompute();
    void redraw();
    void startBootstrap();
    Session* session_;
    PlotChart* profileChart_;
    PlotChart* lawChart_;
    PlotView* profileView_;
    PlotView* lawView_;
    QComboBox* family_;
    QComboBox* axis_;
    QComboBox* law_;
    QComboBox* range_;
    QLabel* summary_;
    fit::IsoFlopResult results_[2];
    std::vector<int> runIndex_[2];  // input index -> session run index
    std::optional<fit::BootstrapResult> bands_[2];
    std::vector<double> bandBudgets_;
    QFutureWatcher<std::pair<fit::BootstrapResult, fit::BootstrapResult>>* bootstrapWatcher_;
    int generation_ = 0;
};

}  // namespace scalex::gui
