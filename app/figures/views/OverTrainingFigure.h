#pragma once
// Over-training (the paper's Fig. 3): power laws of loss over compute per tokens/param M, for two
// series side by side, each at one context length; runs off their ratio's line left out of its
// fit and drawn hollow, and each line's extrapolation check.
#include <QStringList>
#include <memory>
#include <optional>
#include <vector>

#include "app/figures/ViewFigure.h"
#include "core/analysis/SeriesAnalyses.h"

namespace scalex::figures {

class OverTrainingFigure : public FigureWithAnswer<OverTrainingFigure> {
public:
    // The analyses and the runs they point into.
    struct Answer {
        std::shared_ptr<const data::RunTable> table;
        std::vector<analysis::SlopeAnalysis> analyses;
    };

    OverTrainingFigure();
    QString viewId() const override { return QStringLiteral("overtraining"); }
    void refresh(const FigureInput& in) override;
    // The slope analyses of every series (their outlier checks take seconds on 20,000 runs), on a
    // copy of the runs.
    JobOf<Answer> job(const FigureInput& in) const;
    void take(Answer answer);
    void draw(const FigureInput& in) override;
    std::vector<QChart*> charts() const override;
    // η and λ per tokens/param M and series, with 95 % bootstrap intervals of η.
    TablesJob tablesJob(const FigureInput& in) const override;

    // The analysis drawn in panel k (0 or 1; none when the panel has no series).
    const std::optional<analysis::SlopeAnalysis>& shown(int k) const { return shown_[k]; }
    // The words under the charts: the runs left out, or what the extrapolation column means.
    QString summary() const override { return summary_; }
    QString problem() const override;
    // The table beside the charts: η fitted, its extrapolation error and the paper's, per M and panel.
    const QStringList& panelHeaders() const { return panelHeaders_; }
    const std::vector<QStringList>& panelRows() const { return panelRows_; }
    QStringList shownHeaders() const override { return panelHeaders_; }
    std::vector<QStringList> shownRows() const override { return panelRows_; }

private:
    void fillPanelTable(const FigureInput& in);
    // The analysis of series `name` the panels draw: at the context chosen, else at 8192 where it has
    // runs there, else at its context with the most runs.
    std::optional<analysis::SlopeAnalysis> analysisOf(const std::string& name) const;
    PlotChart* charts_[2];
    Answer answer_;
    std::optional<analysis::SlopeAnalysis> shown_[2];
    QString summary_;
    QStringList panelHeaders_;
    std::vector<QStringList> panelRows_;
};

}  // namespace scalex::figures
