#pragma once
// The settings of every analysis and view of a project, saved in its settings.json. Each
// analysis and view keeps a JSON object of its own (the GUI fills them); the settings most
// analyses share have typed accessors and live in the "common" object.
#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <optional>
#include <string>
#include <utility>

#include "core/data/LoadError.h"

namespace scalex::data {

// Equal JSON values, numbers compared by value: JSON text does not keep 6e18 apart from
// 6000000000000000000, nor 8192 from 8192.0.
bool jsonEquivalent(const QJsonValue& a, const QJsonValue& b);

enum class GammaMode { Free, FixedOne };  // L(N,D) fit: gamma fitted or fixed at 1 (App. "Parametric Loss Surface Fit")

class ProjectSettings {
public:
    // Common settings with the paper's defaults.
    std::string flopConvention() const;  // "study" (FlopCount.h conventionNames())
    void setFlopConvention(const std::string& name);
    double contextLength() const;  // 8192
    void setContextLength(double tokens);
    // Only runs the study selected (true): the "all_runs" key, false by default. The typed form of
    // these settings is analysis::AnalysisSettings; these accessors read and write the same keys.
    bool selectedOnly() const;
    void setSelectedOnly(bool on);
    double huberDelta() const;  // 1e-3 (Tab. lnd_fit_params, Fig. fig1_lnd_fit)
    void setHuberDelta(double delta);
    GammaMode gammaMode() const;  // free
    void setGammaMode(GammaMode mode);
    // IsoFLOP budgets included in the power-law fits; empty = all.
    std::optional<std::pair<double, double>> budgetRange() const;
    void setBudgetRange(std::optional<std::pair<double, double>> range);

    const QJsonObject& common() const { return common_; }
    void setCommon(const QJsonObject& common) { common_ = common; }
    QJsonObject analysis(const QString& name) const { return analyses_.value(name).toObject(); }
    void setAnalysis(const QString& name, const QJsonObject& settings) { analyses_[name] = settings; }
    const QJsonObject& analyses() const { return analyses_; }
    QJsonObject view(const QString& name) const { return views_.value(name).toObject(); }
    void setView(const QString& name, const QJsonObject& settings) { views_[name] = settings; }
    const QJsonObject& views() const { return views_; }

    // {"common": {...}, "analyses": {name: {...}}, "views": {name: {...}}}
    QJsonObject toJson() const;
    // Checks the types of the common settings; unknown keys are kept for newer versions.
    static Expected<ProjectSettings> fromJson(const QJsonObject& object, const std::string& file = "settings.json");

    // Equal when their JSON is (jsonEquivalent).
    friend bool operator==(const ProjectSettings& a, const ProjectSettings& b);

private:
    QJsonObject common_, analyses_, views_;
};

}  // namespace scalex::data
