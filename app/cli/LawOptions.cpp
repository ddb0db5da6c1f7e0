#include "app/cli/LawOptions.h"

#include "app/cli/CliSupport.h"

namespace scalex::cli {

void addLawOptions(QCommandLineParser& p, int starts) {
    p.addOptions({
        {"formula", "The law: TARGET = EXPRESSION, or EXPRESSION for the study's loss.", "F"},
        {"param", "A parameter and its bounds: NAME=LO:HI, or NAME=LO:HI@START (repeatable).", "NAME=LO:HI"},
        {"law", "A shipped law instead of --formula (`scalex fit law --list`).", "name"},
        {"loss", "squared or huber.", "squared|huber"},
        {"space", "Residuals in linear or log space.", "linear|log"},
        {"huber-delta", "Huber delta (with --loss huber).", "delta"},
        {"starts", "The budget of space-filling starts: rounds of 64 run until three starts reach the same optimum, or K have run.", "K", QString::number(starts)},
        {"no-projection", "Search every parameter even where the law is linear in some (no variable projection)."},
    });
}

fit::LawDefinition lawFromOptions(const QCommandLineParser& p) {
    analysis::LawRequest r;
    r.law = p.value("law").toStdString();
    r.formula = p.value("formula").toStdString();
    if (p.isSet("formula") && r.formula.empty()) throw UsageError("--formula is empty");
    if (r.law.empty() && r.formula.empty())
        throw UsageError("missing --formula 'TARGET = EXPRESSION' (or --law NAME; `scalex fit law --list` lists them)");
    for (const QString& v : p.values("param")) r.parameters.push_back(v.toStdString());
    r.loss = p.value("loss").toStdString();
    r.space = p.value("space").toStdString();
    if (p.isSet("huber-delta")) r.huberDelta = doubleOption(p, "huber-delta");
    auto law = analysis::lawFromRequest(r);
    if (!law) throw UsageError("--" + law.error().column + ": " + law.error().message);
    return *law;
}

void applyLawFitOptions(const QCommandLineParser& p, fit::LawFitSettings& settings) {
    settings.starts = static_cast<int>(*intOption(p, "starts", 1));
    settings.projection = !p.isSet("no-projection");
}

std::optional<std::vector<analysis::RowCondition>> conditionOptions(const QCommandLineParser& p, const QString& name) {
    if (!p.isSet(name)) return std::nullopt;
    std::vector<analysis::RowCondition> out;
    for (const QString& v : p.values(name)) {
        auto c = analysis::parseCondition(v.toStdString());
        if (!c) throw UsageError("--" + name.toStdString() + " '" + v.toStdString() + "': " + c.error().message);
        out.push_back(*c);
    }
    return out;
}

}  // namespace scalex::cli
