#pragma once
// Laws compared by what they predict (issue "Laws that predict"): up to three laws, each a shipped
// one or a formula typed with its parameters, fitted on the training runs of a split and scored on
// the held-out runs. Two charts: each law's prediction of the held-out runs against what they
// measured (with its 95 % prediction interval), and the runs' loss over compute with the held-out
// runs highlighted and each law's predictions beside them. Tables: the laws side by side, their
// parameters, their predictions (core/analysis/LawTables.h).
#include <QString>
#include <QStringList>
#include <array>
#include <memory>
#include <optional>
#include <vector>

#include "app/figures/ViewFigure.h"
#include "core/analysis/LawAnalysis.h"
#include "core/analysis/LawTables.h"

namespace scalex::figures {

class LawsFigure : public FigureWithAnswer<LawsFigure> {
public:
    struct Answer {
        std::vector<std::string> labels;
        std::vector<std::shared_ptr<const analysis::LawAnalysis>> analyses;
    };

    static constexpr int kLaws = 3;

    LawsFigure();
    QString viewId() const override { return QStringLiteral("laws"); }
    // Checks every law and the split against the study (the errors under the fields).
    void refresh(const FigureInput& in) override;
    // The fits of every law that compiles; a law with an error is not fitted.
    JobOf<Answer> job(const FigureInput& in) const;
    void take(Answer answer);
    void draw(const FigureInput& in) override;
    std::vector<QChart*> charts() const override;
    QString problem() const override;
    // laws (one row per law), params (per law, group and parameter), predictions (per held-out run).
    TablesJob tablesJob(const FigureInput& in) const override;

    // The control names of law k (0-based): its choice, formula and parameters.
    static QString lawKey(int k);
    static QString formulaKey(int k);
    static QString paramsKey(int k);
    // Why law k cannot be fitted as typed (empty: it compiles, or the slot is off).
    QString lawError(int k) const { return lawErrors_[static_cast<std::size_t>(k)]; }
    // Why the train or test conditions, or the group column, cannot be read (empty: they can).
    QString splitError() const { return splitError_; }
    // The analyses drawn, with the names the tables give them.
    const std::vector<analysis::NamedLawAnalysis>& shown() const { return shown_; }
    // One line per law under the charts: its held-out scores, or why it was not fitted.
    QString summary() const override { return summary_; }
    // Every control but the chart's axis changes what is fitted.
    QJsonObject jobControls() const override;
    // Law k's error under its row (its choice's control), the split's under the settings ("split").
    QString controlProblem(const QString& name) const override;
    // The laws side by side, as the exported table "laws" has them (numbers rounded for the screen).
    QStringList shownHeaders() const override;
    std::vector<QStringList> shownRows() const override;

private:
    // The law in slot k as the controls state it; none when the slot is off or the law is wrong
    // (the error in lawErrors_).
    std::optional<fit::LawDefinition> lawOf(int k, const FigureInput& in, QString* error) const;
    analysis::LawFitOptions options(const FigureInput& in, QString* error) const;
    std::string labelOf(int k) const;

    PlotChart* charts_[2];
    std::array<QString, kLaws> lawErrors_;
    QString splitError_, summary_;
    Answer answer_;
    std::vector<analysis::NamedLawAnalysis> shown_;
};

}  // namespace scalex::figures
