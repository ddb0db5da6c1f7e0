#include "app/gui/Session.h"

#include "core/accounting/ParamCount.h"

namespace scalex::gui {

Session::Session(QObject* parent) : QObject(parent) {
    if (auto tables = data::loadPaperTables()) paper_ = std::move(*tables);
}

fit::LossSurfaceParams Session::surface(accounting::Family family) const {
    if (fitted_[index(family)]) return *fitted_[index(family)];
    const data::LossSurfaceParams* p = paper_.lossSurface(family, settings_.huberDelta);
    if (!p) p = paper_.lossSurface(family, 1e-3);
    if (!p) return {};
    return {p->logA, p->logB, p->logE, p->alpha, p->beta, p->gamma};
}

void Session::setFittedSurface(accounting::Family family, const std::optional<fit::LossSurfaceParams>& surface) {
    fitted_[index(family)] = surface;
    emit surfaceChanged();
}

fit::ComputePerToken Session::computePerToken(accounting::Family family, double context) const {
    const accounting::FlopConvention conv = convention();
    std::vector<std::pair<double, double>> samples;
    for (const auto& m : paper_.modelConfigs) {
        if (m.family != family) continue;
        const accounting::ModelConfig c = m.config();
        samples.push_back({static_cast<double>(accounting::countParameters(c).total()),
                           accounting::trainingFlopsPerToken(c, context, conv)});
    }
    // Beyond the study's largest models (7B), continue its shape rules so the optimum is not
    // decided by an extrapolation: d/n_layer = 128 as in the 7B models, Transformer heads of 128,
    // mLSTM heads of d_hv 512.
    for (std::int64_t d : {5120, 6144, 8192, 12288, 16384}) {
        const std::int64_t heads = family == accounting::Family::Transformer ? d / 128 : d / 512;
        const accounting::ModelConfig c = accounting::makeStudyConfig(family, d, d / 128, heads);
        samples.push_back({static_cast<double>(accounting::countParameters(c).total()),
                           accounting::trainingFlopsPerToken(c, context, conv)});
    }
    return fit::smoothComputePerToken(samples);
}

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

bool Session::inAnalysis(const data::Run& run) const { return data::passes(run, filter()); }

data::RunFilter Session::filter(std::optional<accounting::Family> family) const {
    data::RunFilter f;
    f.family = family;
    f.selectedOnly = settings_.selectedOnly;
    return f;
}

}  // namespace scalex::gui
