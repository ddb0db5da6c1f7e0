#include "app/figures/views/LawsFigure.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QObject>
#include <QRegularExpression>
#include <QtCharts/QLineSeries>
#include <QtCharts/QScatterSeries>
#include <algorithm>
#include <cmath>
#include <set>

#include "app/figures/PlotChart.h"
#include "app/figures/RunMarks.h"
#include "app/figures/Theme.h"
#include "core/analysis/Condition.h"
#include "core/analysis/RunSelection.h"
#include "core/analysis/Study.h"

namespace scalex::figures {

namespace {

const QString kFormulaChoice = QStringLiteral("formula");
const QString kNone = QStringLiteral("none");
const QString kOwn = QStringLiteral("law");
const QString kLoss = QStringLiteral("loss"), kSpace = QStringLiteral("space"), kStarts = QStringLiteral("starts"),
              kResamples = QStringLiteral("resamples"), kSplit = QStringLiteral("split"), kTrain = QStringLiteral("train"),
              kTest = QStringLiteral("test"), kGroup = QStringLiteral("group"), kAxis = QStringLiteral("axis");
const QString kLargest = QStringLiteral("largest"), kLargestTenth = QStringLiteral("largest10");

// The laws shown at first: two shipped forms and one typed, so that the view shows both kinds.
const char* const kDefaultLaws[LawsFigure::kLaws] = {"chinchilla", "kaplan", "formula"};
const char* const kDefaultFormula = "L = E + A/N^alpha + B/D^beta";
const char* const kDefaultParams = "E=0:10, A=0:1e8, B=0:1e8, alpha=0.01:2, beta=0.01:2";

// "a, b; c" -> {"a", "b", "c"}: parameters and conditions are typed as one list in a field.
std::vector<std::string> items(const QString& text) {
    std::vector<std::string> out;
    for (const QString& part : text.split(QRegularExpression(QStringLiteral("[,;]")), Qt::SkipEmptyParts))
        if (const QString t = part.trimmed(); !t.isEmpty()) out.push_back(t.toStdString());
    return out;
}

// The runs every law of the view reads (as LawAnalysis scopes them).
std::vector<const data::Run*> runsInScope(const analysis::Study& study) {
    const auto& settings = study.settings();
    const analysis::RunFilter filter = settings.scope.filter();
    std::vector<const data::Run*> out;
    for (const auto& run : study.runs().runs)
        if (settings.scope.containsSeries(run.series) && analysis::passes(run, filter)) out.push_back(&run);
    return out;
}

double axisValue(const data::Run& run, const QString& axis) {
    if (axis == QLatin1String("params")) return run.params;
    if (axis == QLatin1String("tokens")) return run.tokens;
    return run.flops;
}

QString percent(double v) { return std::isfinite(v) ? QString::number(100 * v, 'f', 2) + QStringLiteral(" %") : QStringLiteral("—"); }

}  // namespace

QString LawsFigure::lawKey(int k) { return QStringLiteral("law%1").arg(k + 1); }
QString LawsFigure::formulaKey(int k) { return QStringLiteral("formula%1").arg(k + 1); }
QString LawsFigure::paramsKey(int k) { return QStringLiteral("params%1").arg(k + 1); }

LawsFigure::LawsFigure() : charts_{makeChart(), makeChart()} {
    for (int k = 0; k < kLaws; ++k) {
        std::vector<ControlChoice> choices;
        if (k > 0) choices.push_back({kNone, QObject::tr("none")});
        for (const auto& law : analysis::shippedLawsJson()) choices.push_back(textChoice(law.toObject().value("name").toString()));
        choices.push_back({kFormulaChoice, QObject::tr("formula…")});
        controls().add(choiceControl(lawKey(k), QObject::tr("Law %1").arg(k + 1), std::move(choices), QString::fromLatin1(kDefaultLaws[k]),
                                     QObject::tr("A shipped law (`scalex fit law --list`), or the formula typed beside it")));
        controls().add(textControl(formulaKey(k), QObject::tr("Formula"), QString::fromLatin1(kDefaultFormula),
                                   QObject::tr("TARGET = EXPRESSION over the study's columns (and N, D, C, U, epochs), or the "
                                               "expression alone for the study's loss")));
        controls().add(textControl(paramsKey(k), QObject::tr("Parameters"), QString::fromLatin1(kDefaultParams),
                                   QObject::tr("Each parameter with its bounds, NAME=LO:HI, or NAME=LO:HI@START, separated by commas")));
    }
    controls().add(choiceControl(kLoss, QObject::tr("Loss"),
                                 {{kOwn, QObject::tr("each law's own")}, textChoice("squared"), textChoice("huber")}, kOwn,
                                 QObject::tr("The loss on the residuals: squared, or Huber as Hoffmann et al.")));
    controls().add(choiceControl(kSpace, QObject::tr("Space"),
                                 {{kOwn, QObject::tr("each law's own")}, textChoice("log"), textChoice("linear")}, kOwn,
                                 QObject::tr("Residuals of the target (linear) or of its log")));
    controls().add(integerControl(kStarts, QObject::tr("Starts"), 1, 4096, fit::LawFitSettings{}.starts,
                                  QObject::tr("The budget of space-filling starts: rounds of 64 until three reach the same optimum")));
    controls().add(integerControl(kResamples, QObject::tr("Resamples"), 0, 2000, 50,
                                  QObject::tr("Bootstrap replicates of the prediction intervals (0: none)")));
    controls().add(choiceControl(kSplit, QObject::tr("Held out"),
                                 {{kLargestTenth, QObject::tr("largest tenth of models")}, {kLargest, QObject::tr("largest model")},
                                  {kNone, QObject::tr("nothing")}},
                                 kLargestTenth,
                                 QObject::tr("The runs held out when no train or test condition is typed: those of the "
                                             "largest tenth of the model sizes, of the largest model, or none (every run trains)")));
    controls().add(textControl(kTrain, QObject::tr("Train on"), QString(),
                               QObject::tr("Conditions as --where takes them (N<1e9, D>=2e10), separated by commas: the runs "
                                           "fitted; empty with a test condition: all other runs")));
    controls().add(textControl(kTest, QObject::tr("Test on"), QString(),
                               QObject::tr("Conditions of the held-out runs, as for training; empty with a train condition: all "
                                           "other runs")));
    controls().add(textControl(kGroup, QObject::tr("Group by"), QString(),
                               QObject::tr("A column: one fit per value of it (empty: one fit of every run)")));
    controls().add(choiceControl(kAxis, QObject::tr("Runs over"),
                                 {{QStringLiteral("compute"), QObject::tr("compute C")},
                                  {QStringLiteral("params"), QObject::tr("parameters N")},
                                  {QStringLiteral("tokens"), QObject::tr("tokens D")}},
                                 QStringLiteral("compute"), QObject::tr("The horizontal axis of the right chart")));
}

std::vector<QChart*> LawsFigure::charts() const { return {charts_[0], charts_[1]}; }

QJsonObject LawsFigure::jobControls() const {
    QJsonObject values = controls().values();
    values.remove(kAxis);
    return values;
}

QString LawsFigure::controlProblem(const QString& name) const {
    if (name == kSplit) return splitError_;
    for (int k = 0; k < kLaws; ++k)
        if (name == lawKey(k)) return lawError(k);
    return {};
}

QStringList LawsFigure::shownHeaders() const {
    QStringList headers;
    for (const auto& column : analysis::lawComparisonTable(shown_).columns) headers << QString::fromStdString(column.key);
    return headers;
}

std::vector<QStringList> LawsFigure::shownRows() const {
    std::vector<QStringList> rows;
    for (const auto& row : analysis::lawComparisonTable(shown_).rows) {
        QStringList cells;
        for (const auto& cell : row) {
            if (const auto* s = std::get_if<std::string>(&cell)) cells << QString::fromStdString(*s);
            else if (const auto* d = std::get_if<double>(&cell)) cells << QString::number(*d, 'g', 5);
            else cells << QString();
        }
        rows.push_back(cells);
    }
    return rows;
}

std::string LawsFigure::labelOf(int k) const {
    const QString key = controls().choice(lawKey(k));
    return key == kFormulaChoice ? QStringLiteral("formula %1").arg(k + 1).toStdString() : key.toStdString();
}

std::optional<fit::LawDefinition> LawsFigure::lawOf(int k, const FigureInput& in, QString* error) const {
    error->clear();
    const QString key = controls().choice(lawKey(k));
    if (key == kNone || key.isEmpty()) return std::nullopt;
    analysis::LawRequest request;
    if (key == kFormulaChoice) {
        request.formula = controls().text(formulaKey(k)).trimmed().toStdString();
        request.parameters = items(controls().text(paramsKey(k)));
        if (request.formula.empty()) {
            *error = QObject::tr("type a formula, e.g. %1").arg(QString::fromLatin1(kDefaultFormula));
            return std::nullopt;
        }
    } else {
        request.law = key.toStdString();
    }
    if (const QString loss = controls().choice(kLoss); loss != kOwn) request.loss = loss.toStdString();
    if (const QString space = controls().choice(kSpace); space != kOwn) request.space = space.toStdString();
    auto law = analysis::lawFromRequest(request);
    if (!law) {
        *error = QString::fromStdString(law.error().message);
        return std::nullopt;
    }
    if (const std::string problem = analysis::checkLaw(in.study->runs(), in.study->settings(), *law); !problem.empty()) {
        *error = QString::fromStdString(problem);
        return std::nullopt;
    }
    return *law;
}

analysis::LawFitOptions LawsFigure::options(const FigureInput& in, QString* error) const {
    analysis::LawFitOptions o;
    o.fit.starts = static_cast<int>(controls().number(kStarts));
    o.resamples = static_cast<int>(controls().number(kResamples));
    o.fit.seed = o.seed;
    QStringList errors;
    auto conditions = [&](const QString& name) -> std::optional<std::vector<analysis::RowCondition>> {
        const auto texts = items(controls().text(name));
        if (texts.empty()) return std::nullopt;
        std::vector<analysis::RowCondition> out;
        for (const auto& t : texts) {
            auto c = analysis::parseCondition(t);
            if (!c) errors << QStringLiteral("%1: %2").arg(controls().at(name).label, QString::fromStdString(c.error().message));
            else out.push_back(*c);
        }
        if (auto e = analysis::checkColumns(in.study->runs(), out))
            errors << QStringLiteral("%1: %2").arg(controls().at(name).label, QString::fromStdString(e->message));
        return out;
    };
    o.train = conditions(kTrain);
    o.test = conditions(kTest);
    if (const QString preset = controls().choice(kSplit); !o.train && !o.test && preset != kNone) {
        // The largest model held out, or the largest tenth of the model sizes (at least one): the
        // runs at those N, as a condition on N.
        std::set<double> sizes;
        for (const data::Run* r : runsInScope(*in.study))
            if (std::isfinite(r->params)) sizes.insert(r->params);
        if (!sizes.empty()) {
            const std::size_t held = preset == kLargest ? 1 : std::max<std::size_t>(1, sizes.size() / 10);
            const double from = *std::next(sizes.rbegin(), static_cast<std::ptrdiff_t>(held - 1));
            if (auto c = analysis::parseCondition("N>=" + QString::number(from, 'g', 17).toStdString())) o.test = std::vector{*c};
        }
    }
    if (const QString group = controls().text(kGroup).trimmed(); !group.isEmpty()) {
        o.groupColumn = group.toStdString();
        analysis::RowCondition column;
        column.column = group.toStdString();
        if (auto e = analysis::checkColumns(in.study->runs(), {column}))
            errors << QStringLiteral("%1: %2").arg(controls().at(kGroup).label, QString::fromStdString(e->message));
    }
    *error = errors.join(QStringLiteral("; "));
    return o;
}

namespace {

// A shipped law's formula and parameters as the fields write them, so that choosing "formula…"
// after it starts from it.
std::optional<std::pair<QString, QString>> shippedFields(const QString& name) {
    for (const QJsonValue& v : analysis::shippedLawsJson()) {
        const QJsonObject law = v.toObject();
        if (law.value("name").toString() != name) continue;
        QStringList params;
        for (const QJsonValue& p : law.value("parameters").toArray()) {
            const QJsonObject o = p.toObject();
            QString text = QStringLiteral("%1=%2:%3").arg(o.value("name").toString(), QString::number(o.value("lower").toDouble(), 'g', 10),
                                                          QString::number(o.value("upper").toDouble(), 'g', 10));
            if (o.value("start").isDouble()) text += QStringLiteral("@") + QString::number(o.value("start").toDouble(), 'g', 10);
            params << text;
        }
        return std::pair{law.value("formula").toString(), params.join(QStringLiteral(", "))};
    }
    return std::nullopt;
}

}  // namespace

void LawsFigure::refresh(const FigureInput& in) {
    for (int k = 0; k < kLaws; ++k) {
        const bool typed = controls().choice(lawKey(k)) == kFormulaChoice;
        if (auto fields = typed ? std::nullopt : shippedFields(controls().choice(lawKey(k)))) {
            controls().at(formulaKey(k)).value = fields->first;
            controls().at(paramsKey(k)).value = fields->second;
        }
        controls().at(formulaKey(k)).enabled = typed;
        controls().at(paramsKey(k)).enabled = typed;
        lawOf(k, in, &lawErrors_[static_cast<std::size_t>(k)]);
    }
    options(in, &splitError_);
    controls().at(kSplit).enabled = controls().text(kTrain).trimmed().isEmpty() && controls().text(kTest).trimmed().isEmpty();
}

JobOf<LawsFigure::Answer> LawsFigure::job(const FigureInput& in) const {
    struct Slot {
        std::string label;
        fit::LawDefinition law;
    };
    std::vector<Slot> fits;
    QString error;
    for (int k = 0; k < kLaws; ++k)
        if (auto law = lawOf(k, in, &error)) fits.push_back({labelOf(k), *law});
    const analysis::LawFitOptions opts = options(in, &error);
    if (!error.isEmpty()) fits.clear();  // a split that cannot be read fits nothing
    return [table = runsForJob(in), settings = in.study->settings(), fits, opts](const fit::FitControl& control) -> Answer {
        Answer a;
        for (const Slot& s : fits) {
            if (control.cancelled()) break;
            a.labels.push_back(s.label);
            a.analyses.push_back(std::make_shared<const analysis::LawAnalysis>(analysis::fitLawAnalysis(*table, settings, s.law, opts, control)));
        }
        return a;
    };
}

void LawsFigure::take(Answer answer) {
    Answer* a = &answer;
    answer_ = std::move(*a);
    // shown_ points into the analyses just replaced: repoint it now, not at the next draw, since
    // the window reads it (Explain, the table) in between.
    shown_.clear();
    for (std::size_t i = 0; i < answer_.analyses.size(); ++i) shown_.push_back({answer_.labels[i], answer_.analyses[i].get()});
}

QString LawsFigure::problem() const {
    for (const auto& s : shown_)
        for (const auto& g : s.analysis->groups)
            if (g.error.empty()) return {};
    QStringList why;
    for (int k = 0; k < kLaws; ++k)
        if (!lawErrors_[static_cast<std::size_t>(k)].isEmpty()) why << QStringLiteral("law %1: %2").arg(k + 1).arg(lawErrors_[static_cast<std::size_t>(k)]);
    if (!splitError_.isEmpty()) why << splitError_;
    for (const auto& s : shown_)
        if (s.analysis->error) why << QString::fromStdString(s.label + ": " + *s.analysis->error);
    return QObject::tr("no law could be fitted%1").arg(why.isEmpty() ? QString() : QStringLiteral(" (") + why.join(QStringLiteral("; ")) + ")");
}

void LawsFigure::draw(const FigureInput& in) {
    const Theme& theme = Theme::current();
    refresh(in);
    const auto& runs = in.study->runs().runs;
    const QString axis = controls().choice(kAxis);

    // Left: each law's prediction of the held-out runs against what they measured.
    PlotChart* left = charts_[0];
    left->clearSeries();
    left->setAxes({QObject::tr("Observed loss"), false, 2, 4}, {QObject::tr("Predicted loss"), false, 2, 4});
    // Right: every run in scope over compute (or N, D), the held-out ones highlighted, each law's
    // predictions beside them.
    PlotChart* right = charts_[1];
    right->clearSeries();
    const QString axisTitle = axis == QLatin1String("params")   ? QObject::tr("Parameters N")
                              : axis == QLatin1String("tokens") ? QObject::tr("Tokens D")
                                                                : QObject::tr("Compute C (FLOPs)");
    right->setAxes({axisTitle, true, 1e18, 1e22, axis != QLatin1String("compute")}, {QObject::tr("Loss"), true, 2, 4});

    std::set<int> heldOut;
    for (const auto& s : shown_)
        for (const auto& g : s.analysis->groups)
            for (const auto& p : g.predictions) heldOut.insert(p.run);
    std::vector<RunPoint> trained, tested;
    for (const data::Run* r : runsInScope(*in.study)) {
        const int index = static_cast<int>(r - runs.data());
        (heldOut.count(index) ? tested : trained).push_back({{axisValue(*r, axis), r->loss()}, index});
    }
    addRunPoints(right, in, QObject::tr("training runs"), theme.muted, trained, 6);
    if (QScatterSeries* s = addRunPoints(right, in, QObject::tr("held-out runs"), theme.highlight, tested, 10)) {
        s->setColor(Qt::transparent);
        s->setBorderColor(theme.highlight);
    }

    double lo = 1e300, hi = 0;
    for (const auto& s : shown_)
        for (const auto& g : s.analysis->groups)
            for (const auto& p : g.predictions)
                for (double v : {p.observed, p.predicted, p.lower, p.upper})
                    if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
    int bars = 0;
    constexpr int kMaxBars = 600;  // a graphics item each: beyond this the points alone
    QStringList notes;
    const int nShown = static_cast<int>(shown_.size());
    for (int i = 0; i < nShown; ++i) {
        const auto& [label, a] = shown_[static_cast<std::size_t>(i)];
        const QColor color = theme.series(std::string(), i);
        const QString name = QString::fromStdString(label);
        std::vector<QPointF> versus, over;
        // Side by side (a small shift in x, in both charts) so that the laws' intervals at one run do
        // not hide each other.
        const double shift = std::pow(10.0, 0.012 * (i - (nShown - 1) / 2.0));
        for (const auto& g : a->groups)
            for (const auto& p : g.predictions) {
                if (!std::isfinite(p.predicted)) continue;
                const double dodged = p.observed + (hi - lo) * (0.006 * (i - (nShown - 1) / 2.0));
                versus.push_back({dodged, p.predicted});
                const double x = p.run >= 0 && p.run < static_cast<int>(runs.size()) ? axisValue(runs[static_cast<std::size_t>(p.run)], axis) * shift
                                                                                    : data::kUnknown;
                if (std::isfinite(x)) over.push_back({x, p.predicted});
                if (std::isfinite(p.lower) && std::isfinite(p.upper) && bars < kMaxBars) {
                    ++bars;
                    PlotChart::hideFromLegend(left, left->addLine(QString(), color, {{dodged, p.lower}, {dodged, p.upper}}, 1.2));
                    if (std::isfinite(x))
                        PlotChart::hideFromLegend(right, right->addLine(QString(), color, {{x, p.lower}, {x, p.upper}}, 1.2));
                }
            }
        left->addScatter(name, color, versus, 7);
        right->addScatter(name, color, over, 6);
        QString line = name + QStringLiteral(": ");
        if (a->error) line += QString::fromStdString(*a->error);
        else if (a->test)
            line += QObject::tr("held-out R² %1, mean relative error %2, max %3 (%4 runs)")
                        .arg(a->test->r2, 0, 'f', 4).arg(percent(a->test->mape), percent(a->test->maxRelError)).arg(a->test->n);
        else line += QObject::tr("nothing held out");
        if (const std::string doubt = analysis::lawAnalysisDoubt(*a); !a->error && !doubt.empty())
            line += QObject::tr("; the R² rests on a doubtful optimum: %1").arg(QString::fromStdString(doubt));
        for (const auto& g : a->groups)
            if (!g.error.empty()) line += QStringLiteral("; %1: %2").arg(QString::fromStdString(g.name), QString::fromStdString(g.error));
        notes << line;
    }
    if (hi > lo) {
        // The diagonal: a perfect prediction.
        const double pad = 0.04 * (hi - lo);
        PlotChart::hideFromLegend(left, left->addLine(QString(), theme.muted, {{lo - pad, lo - pad}, {hi + pad, hi + pad}}, 1.0, Qt::DashLine));
        // Both axes over the same range, so that the diagonal runs corner to corner.
        left->includeInRange(lo, lo);
        left->includeInRange(hi, hi);
        left->setTitle(QObject::tr("Held-out runs"));
    } else {
        left->setTitle(QObject::tr("Nothing held out"));
    }
    right->setTitle(QObject::tr("All runs"));
    left->fitRangesToData(0.06);
    right->fitRangesToData(0.06);
    addSelectionRings(right, in, trained);
    addSelectionRings(right, in, tested);
    for (int k = 0; k < kLaws; ++k)
        if (!lawErrors_[static_cast<std::size_t>(k)].isEmpty())
            notes << QObject::tr("law %1 not fitted: %2").arg(k + 1).arg(lawErrors_[static_cast<std::size_t>(k)]);
    if (!splitError_.isEmpty()) notes << splitError_;
    summary_ = notes.join(QStringLiteral("\n"));
}

ViewFigure::TablesJob LawsFigure::tablesJob(const FigureInput&) const {
    return [analyses = answer_.analyses, labels = answer_.labels](const fit::FitControl&) -> std::vector<FigureTable> {
        std::vector<analysis::NamedLawAnalysis> named;
        for (std::size_t i = 0; i < analyses.size(); ++i) named.push_back({labels[i], analyses[i].get()});
        return {{QStringLiteral("laws"), QObject::tr("Laws side by side: fit and held-out scores"), analysis::lawComparisonTable(named)},
                {QStringLiteral("params"), QObject::tr("Fitted parameters per law and group"), analysis::lawParameterTable(named)},
                {QStringLiteral("predictions"), QObject::tr("Held-out runs and each law's prediction"), analysis::lawPredictionTable(named)}};
    };
}

}  // namespace scalex::figures
