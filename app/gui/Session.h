#pragma once
// The state the explorer window shows: the run table, the analysis settings, the selection
// shared by every view, and the results of the analyses. Views read it and listen to its
// signals; they never own data.
#include <QObject>
#include <QSet>
#include <QString>

#include "core/accounting/FlopCount.h"
#include "core/data/RunTable.h"

namespace scalex::gui {

struct AnalysisSettings {
    QString convention = QStringLiteral("study");  // FLOP convention name (accounting::conventionByName)
    double context = 8192;                           // context length of the slider
    bool selectedOnly = true;                        // the study's own selection (`selected_in_paper`)
    double huberDelta = 1e-3;
    bool gammaFree = true;
};

class Session : public QObject {
    Q_OBJECT
public:
    explicit Session(QObject* parent = nullptr);

    const data::RunTable& runs() const { return runs_; }
    const AnalysisSettings& settings() const { return settings_; }
    accounting::FlopConvention convention() const;
    QString sourceLabel() const { return sourceLabel_; }

    void setRuns(data::RunTable runs, const QString& label);
    void setSettings(const AnalysisSettings& settings);
    // The user's include/exclude toggle of one run (index into runs().runs).
    void setIncluded(int index, bool included);

    // Runs selected in any view (indices into runs().runs), highlighted in all views.
    const QSet<int>& selection() const { return selection_; }
    void setSelection(const QSet<int>& selection);

    // A run takes part in the analyses: included, and selected by the study when selectedOnly is on.
    bool inAnalysis(const data::Run& run) const;

signals:
    void runsChanged();
    void settingsChanged();
    void selectionChanged();

private:
    data::RunTable runs_;
    AnalysisSettings settings_;
    QSet<int> selection_;
    QString sourceLabel_;
};

}  // namespace scalex::gui
