#include "app/gui/Session.h"

namespace scalex::gui {

Session::Session(QObject* parent) : QObject(parent) {}

accounting::FlopConvention Session::convention() const {
    return accounting::conventionByName(settings_.convention.toStdString()).value_or(accounting::studyConvention());
}

void Session::setRuns(data::RunTable runs, const QString& label) {
    runs_ = std::move(runs);
    sourceLabel_ = label;
    selection_.clear();
    emit runsChanged();
    emit selectionChanged();
}

void Session::setSettings(const AnalysisSettings& settings) {
    settings_ = settings;
    emit settingsChanged();
}

void Session::setIncluded(int index, bool included) {
    if (index < 0 || index >= static_cast<int>(runs_.runs.size())) return;
    data::Run& run = runs_.runs[static_cast<std::size_t>(index)];
    if (run.included() == included) return;
    run.userIncluded = included;
    emit runsChanged();
}

void Session::setSelection(const QSet<int>& selection) {
    if (selection == selection_) return;
    selection_ = selection;
    emit selectionChanged();
}

bool Session::inAnalysis(const data::Run& run) const {
    if (run.userIncluded.has_value()) return *run.userIncluded;  // the user's toggle wins
    if (!run.included()) return false;
    if (settings_.selectedOnly && run.selectedInPaper.has_value() && !*run.selectedInPaper) return false;
    return true;
}

}  // namespace scalex::gui
