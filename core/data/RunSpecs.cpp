#include "core/data/RunSpecs.h"

#include <QDir>
#include <QFileInfo>
#include <algorithm>
#include <cmath>

#include "core/accounting/SpecAccounting.h"
#include "core/data/SpecJson.h"

namespace scalex::data {

RunSpecBinder::RunSpecBinder(const std::vector<ProjectSpec>& specs, accounting::FlopConvention convention)
    : convention_(convention) {
    for (const auto& s : specs) projectSpecs_[s.name] = std::make_shared<const accounting::ModelSpec>(s.spec);
}

std::shared_ptr<const accounting::ModelSpec> RunSpecBinder::resolve(const std::string& name, const std::string& file,
                                                                     std::string* why) {
    if (auto it = projectSpecs_.find(name); it != projectSpecs_.end()) return it->second;
    // A path relative to the table's own file.
    const QString relative = QString::fromStdString(name);
    const QFileInfo table(QString::fromStdString(file));
    const QString path = QFileInfo(relative).isAbsolute() ? relative : table.absoluteDir().filePath(relative);
    const std::string key = QFileInfo(path).absoluteFilePath().toStdString();
    if (auto it = files_.find(key); it != files_.end()) return it->second;
    std::shared_ptr<const accounting::ModelSpec> spec;
    if (QFileInfo(path).isFile()) {
        auto model = readModelFile(path.toStdString());
        if (!model) {
            *why = "spec '" + name + "': " + model.error().toString();
            return nullptr;
        }
        spec = std::make_shared<const accounting::ModelSpec>(std::move(model->spec));
    } else {
        std::string names;
        for (const auto& [n, s] : projectSpecs_) names += (names.empty() ? "" : ", ") + n;
        *why = "unknown spec '" + name + "': no spec of the project has this name (" +
               (names.empty() ? std::string("it has none") : "it has " + names) + ") and no model file is at " +
               path.toStdString();
        return nullptr;
    }
    files_[key] = spec;
    return spec;
}

std::optional<LoadError> RunSpecBinder::bind(Run& run, const std::string& file) {
    const auto cell = run.raw.value(kSpecColumn);
    if (!cell) return std::nullopt;
    const std::string name = QString::fromStdString(*cell).trimmed().toStdString();
    if (name.empty()) return std::nullopt;
    run.specName = name;
    std::string why;
    run.spec = resolve(name, file, &why);
    if (!run.spec) {
        run.problems.push_back(std::string(kSpecColumn) + ": " + why);
        return LoadError{file, run.sourceLine, kSpecColumn, why};
    }
    applySpecAccounting(run, *run.spec, convention_);
    return std::nullopt;
}

namespace {
void dropProblem(Run& run, const std::string& prefix) {
    std::erase_if(run.problems, [&](const std::string& p) { return p.rfind(prefix, 0) == 0; });
}
}  // namespace

void applySpecAccounting(Run& run, const accounting::ModelSpec& spec, const accounting::FlopConvention& convention) {
    if (run.paramsSource != Provenance::FromFile) {
        run.params = static_cast<double>(accounting::paramCounts(spec).activeTotal());
        run.paramsSource = Provenance::Derived;
        dropProblem(run, "N missing");
    }
    if (!(run.context > 0)) return;
    const double perToken = accounting::trainingFlopsPerToken(spec, run.context, convention);
    if (run.tokensSource == Provenance::SixNdFallback && run.flopsSource == Provenance::FromFile) {
        run.tokens = run.flops / perToken;
        run.tokensSource = Provenance::Derived;
    } else if (run.flopsSource != Provenance::FromFile && run.tokens > 0) {
        run.flops = perToken * run.tokens;
        run.flopsSource = Provenance::Derived;
    } else if (!known(run.tokens) && run.flops > 0) {
        run.tokens = run.flops / perToken;
        run.tokensSource = Provenance::Derived;
    }
    if (known(run.tokens)) dropProblem(run, "D missing");
}

std::optional<accounting::ModelLadder> seriesSpecLadder(const RunTable& table, const std::string& series) {
    std::vector<std::shared_ptr<const accounting::ModelSpec>> specs;
    bool any = false;
    for (const auto& run : table.runs) {
        if (run.series != series) continue;
        if (!run.spec) return std::nullopt;
        any = true;
        if (std::none_of(specs.begin(), specs.end(), [&](const auto& s) { return s == run.spec || *s == *run.spec; }))
            specs.push_back(run.spec);
    }
    if (!any) return std::nullopt;
    if (specs.size() == 1) return accounting::specLadder(*specs.front());
    std::vector<std::pair<std::int64_t, const accounting::ModelSpec*>> bySize;
    for (const auto& s : specs) bySize.push_back({accounting::paramCounts(*s).activeTotal(), s.get()});
    std::stable_sort(bySize.begin(), bySize.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    accounting::ModelLadder ladder{series, {}};
    for (const auto& [n, s] : bySize) ladder.rungs.push_back(*s);
    // Past its largest model the ladder goes on by that model sized up (as the paper's ladder goes on
    // past its models by their shape rules), so that c_T(N) of larger optima is counted, not held.
    const accounting::ModelSpec largest = ladder.rungs.back();
    for (std::int64_t width : accounting::defaultLadderWidths())
        if (width > largest.dModel) ladder.rungs.push_back(accounting::scaleSpec(largest, width));
    return ladder;
}

}  // namespace scalex::data
