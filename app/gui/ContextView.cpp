#include "app/gui/ContextView.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QVBoxLayout>
#include <QtCharts/QLegendMarker>
#include <QtCharts/QLineSeries>
#include <QtCharts/QScatterSeries>
#include <QtConcurrent/QtConcurrentRun>
#include <cmath>

#include "app/figures/LogTicks.h"
#include "app/gui/FigureNames.h"
#include "app/gui/JobPool.h"
#include "app/gui/PlotView.h"
#include "app/gui/Session.h"
#include "app/figures/Theme.h"
#include "app/gui/FigureNames.h"
#include "core/analysis/RunSelection.h"
#include "core/data/RunDerivation.h"

namespace scalex::gui {

using accounting::Family;

namespace {
constexpr int kStepsPerOctave = 4;
constexpr double kMinContext = 512;
constexpr int kOctaves = 8;  // 512 ... 131072

double nearestMultipleOf64(double t) { return std::max(64.0, std::round(t / 64.0) * 64.0); }
}  // namespace

double ContextView::contextAt(int pos) {
    return nearestMultipleOf64(kMinContext * std::pow(2.0, static_cast<double>(pos) / kStepsPerOctave));
}

int ContextView::positionOf(double t) {
    return static_cast<int>(std::lround(std::log2(t / kMinContext) * kStepsPerOctave));
}

ContextView::ContextView(Session* session, QWidget* parent) : ViewPanel(parent), session_(session) {
    slider_ = new QSlider(Qt::Horizontal, this);
    slider_->setObjectName(QStringLiteral("context"));
    slider_->setRange(0, kOctaves * kStepsPerOctave);
    // Recipes, lessons and `--set context=16384` name the context length shown, not the position.
    QVariantList shown;
    for (int pos = 0; pos <= kOctaves * kStepsPerOctave; ++pos) shown << contextAt(pos);
    slider_->setProperty("scalexShownValues", shown);
    slider_->setTickPosition(QSlider::TicksBelow);
    slider_->setTickInterval(kStepsPerOctave);
    slider_->setPageStep(kStepsPerOctave);
    slider_->setValue(positionOf(8192));
    slider_->setToolTip(tr("Context length T: 512 … 131072 tokens (the study trained at 2048, 8192 and 16384)"));
    contextLabel_ = new QLabel(this);
    contextLabel_->setMinimumWidth(170);
    QFont big = contextLabel_->font();
    big.setPointSize(big.pointSize() + 3);
    big.setBold(true);
    contextLabel_->setFont(big);
    budget_ = new QComboBox(this);
    budget_->setObjectName(QStringLiteral("budget"));
    for (double h : {1e20, 1e21, 1e22, 1e23, 1e24}) budget_->addItem(formatTickValue(h) + tr(" FLOPs"), h);
    budget_->setCurrentIndex(2);
    numbers_ = new QLabel(this);
    numbers_->setTextFormat(Qt::RichText);
    numbers_->setWordWrap(true);  // a long line would set the window's minimum width

    // Tick labels under the slider, with the study's contexts marked.
    auto* marks = new QHBoxLayout();
    marks->setContentsMargins(0, 0, 0, 0);
    for (int o = 0; o <= kOctaves; ++o) {
        const double t = kMinContext * std::pow(2.0, o);
        const bool study = t == 2048 || t == 8192 || t == 16384;
        auto* l = new QLabel(t >= 1024 ? QString::number(t / 1024) + 'k' : QString::number(t), this);
        if (study) l->setText(QStringLiteral("<b>%1</b>▲").arg(l->text()));
        l->setAlignment(o == 0 ? Qt::AlignLeft : (o == kOctaves ? Qt::AlignRight : Qt::AlignHCenter));
        marks->addWidget(l, 1);
    }
    auto* sliderBox = new QVBoxLayout();
    sliderBox->addWidget(slider_);
    sliderBox->addLayout(marks);
    // The context length and the budget one above the other, the slider beside them.
    auto* budgetRow = new QHBoxLayout();
    budgetRow->addWidget(new QLabel(tr("Budget"), this));
    budgetRow->addWidget(budget_);
    auto* readout = new QVBoxLayout();
    readout->addWidget(contextLabel_);
    readout->addLayout(budgetRow);
    auto* top = new QHBoxLayout();
    top->addLayout(readout);
    top->addSpacing(12);
    top->addLayout(sliderBox, 1);

    lawChart_ = new PlotChart();
    trendChart_ = new PlotChart();
    lawView_ = new PlotView(lawChart_, this);
    trendView_ = new PlotView(trendChart_, this);
    auto* charts = new QHBoxLayout();
    charts->addWidget(lawView_, 1);
    charts->addWidget(trendView_, 1);
    stackWhenNarrow(charts);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addLayout(charts, 1);
    layout->addWidget(numbers_);

    connect(slider_, &QSlider::valueChanged, this, &ContextView::recompute);
    connect(budget_, &QComboBox::currentIndexChanged, this, &ContextView::recompute);
    watcher_ = new QFutureWatcher<analysis::ContextAnswer>(this);
    connect(watcher_, &QFutureWatcherBase::finished, this, &ContextView::takeAnswer);
    // The profiles are refitted when the view is next shown (a recompute alone waits too).
    auto refit = [this] {
        profilesStale_ = true;
        if (!deferWhileHidden([this] { recompute(); }, 1)) recompute();
    };
    connect(session_, &Session::settingsChanged, this, refit);
    connect(session_, &Session::runsChanged, this, refit);
    connect(session_, &Session::styleChanged, this, [this] {
        if (running_ == generation_) return;  // drawn when the answer comes
        if (!deferWhileHidden([this] { redraw(); }, -1)) redraw();
    });
    connect(session_, &Session::surfaceChanged, this, [this] {
        if (!deferWhileHidden([this] { recompute(); })) recompute();
    });
    recompute();
}

ContextView::~ContextView() {
    if (cancel_) cancel_->store(true);
    watcher_->waitForFinished();
}

QChart* ContextView::primaryChart() const { return lawChart_; }
std::vector<QChart*> ContextView::charts() const { return {lawChart_, trendChart_}; }
double ContextView::context() const { return contextAt(slider_->value()); }
void ContextView::setContext(double t) {
    slider_->setValue(positionOf(t));
    computeNow();
}
double ContextView::budget() const { return budget_->currentData().toDouble(); }
double ContextView::optimalParams(bool xlstm) const {
    const auto* a = answer_.find(xlstm ? Family::Xlstm : Family::Transformer);
    return a ? a->sweep.here.params : 0;
}
std::optional<fit::PowerLaw> ContextView::recostedLaw(bool xlstm) const {
    const auto* a = answer_.find(xlstm ? Family::Xlstm : Family::Transformer);
    return a ? a->recount.law : std::nullopt;
}

void ContextView::recompute() {
    const double T = context();
    contextLabel_->setText(tr("T = %1").arg(QLocale().toString(static_cast<qlonglong>(T))));
    ++generation_;
    if (cancel_) cancel_->store(true);  // a newer query replaces the running one
    // What the job reads is copied here, on the UI thread: the session may change meanwhile.
    std::vector<analysis::ContextSeriesInput> inputs;
    for (Family f : {Family::Transformer, Family::Xlstm}) {
        analysis::ContextSeriesInput in;
        in.name = accounting::familyLabel(f);
        in.family = f;
        in.surface = session_->surface(f);
        in.isoFlopRuns = session_->filter(f);
        if (!profilesStale_)
            for (const auto& [name, profiles] : profiles_)
                if (name == in.name) in.profiles = profiles;
        inputs.push_back(std::move(in));
    }
    analysis::ContextQuery query;
    query.context = T;
    query.budget = budget();
    for (int pos = 0; pos <= kOctaves * kStepsPerOctave; ++pos) query.contexts.push_back(contextAt(pos));
    query.configs = session_->paper().modelConfigs;
    query.convention = session_->convention();
    // The runs only when the profiles are fitted anew.
    auto table = profilesStale_ ? session_->runsSnapshot() : std::make_shared<const data::RunTable>();
    cancel_ = std::make_shared<std::atomic<bool>>(false);
    running_ = generation_;
    watcher_->setFuture(QtConcurrent::run(jobPool(), [table, settings = session_->settings(), inputs = std::move(inputs),
                                                      query = std::move(query), cancel = cancel_] {
        fit::FitControl control;
        control.cancel = cancel.get();
        return analysis::answerContextQuery(*table, settings, inputs, query, control);
    }));
}

void ContextView::takeAnswer() {
    if (running_ != generation_ || !watcher_->isFinished()) return;
    running_ = -1;
    answer_ = watcher_->result();
    profiles_.clear();
    for (const auto& a : answer_.series) profiles_.push_back({a.name, a.profiles});
    profilesStale_ = false;
    redraw();
}

void ContextView::computeNow() {
    if (running_ != generation_) return;
    watcher_->waitForFinished();
    takeAnswer();
}

void ContextView::redraw() {
    const Theme& theme = Theme::current();
    const double T = answer_.query.context;
    const double H0 = answer_.query.budget;
    const auto& budgets = answer_.query.budgets;
    const auto& contexts = answer_.query.contexts;

    lawChart_->clearSeries();
    trendChart_->clearSeries();
    lawChart_->setAxes({tr("Budget H (FLOPs)"), true, 1e18, 1e25}, {tr("N* (params)"), true, 1e7, 1e12, true});
    trendChart_->setAxes({tr("Context length T"), true, 400, 160000}, {tr("N* (params)"), true, 1e8, 1e11, true});
    lawChart_->setTitle(tr("N*(H) at T = %1").arg(T));
    trendChart_->setTitle(tr("N* at H = %1").arg(formatTickValue(H0)));

    // The study's own profiles, their compute recounted at T: same runs, same N*, new H.
    bool recounted = false, recountedLaw = false;
    for (const auto& a : answer_.series) {
        if (a.recount.budgets.empty()) continue;
        const QColor color = theme.family(a.family).darker(150);
        std::vector<QPointF> pts;
        for (std::size_t i = 0; i < a.recount.budgets.size(); ++i) pts.push_back({a.recount.budgets[i], a.recount.optima[i]});
        const QString name = QString::fromStdString(a.name);
        // The legend names what a style means once, in grey; the colours are the series' (below).
        PlotChart::hideFromLegend(lawChart_, lawChart_->addScatter(tr("%1 runs recounted at T").arg(name), color, pts, 8, true));
        recounted = true;
        if (const auto& law = a.recount.law) {
            std::vector<QPointF> line;
            for (const double H : budgets) line.push_back({H, (*law)(H)});
            PlotChart::hideFromLegend(lawChart_, lawChart_->addLine(QString(), color, line, 1.2, Qt::DashDotLine));
            recountedLaw = true;
        }
    }

    bool at8k = false, studyFit = false, studyPointsShown = false;
    double trendLo = 1e300, trendHi = 0;
    for (const auto& a : answer_.series) {
        const QColor color = theme.family(a.family);
        const QString name = QString::fromStdString(a.name);
        // N*(H) at this context and at the study's main context, and N* at H0 over every context of the slider.
        const analysis::ContextSweep& sweep = a.sweep;
        for (const auto* optima : {&sweep.atContext, &sweep.atReference}) {
            if (optima->empty()) continue;
            std::vector<QPointF> line;
            for (std::size_t i = 0; i < optima->size(); ++i) line.push_back({budgets[i], (*optima)[i].params});
            if (optima == &sweep.atContext)
                lawChart_->addLine(name, color, line, 2.5);
            else
                PlotChart::hideFromLegend(lawChart_, lawChart_->addLine(tr("%1 at 8k").arg(name), color.lighter(140), line, 1.2, Qt::DashLine)),
                    at8k = true;
        }
        // The study's own per-context IsoFLOP power laws (Tab. estimated_optimal_*_context_*).
        for (const auto& law : session_->paper().isoflopPowerLaws) {
            if (law.family != a.family || static_cast<double>(law.context) != T ||
                law.sourceTable.find("context") == std::string::npos)
                continue;
            std::vector<QPointF> line;
            for (const double H : budgets) line.push_back({H, law.coefN * std::pow(H, law.exponentN)});
            PlotChart::hideFromLegend(lawChart_, lawChart_->addLine(tr("%1 (paper's IsoFLOP law at T)").arg(name), color.darker(130), line, 1.5, Qt::DotLine));
            studyFit = true;
        }
        std::vector<QPointF> trend;
        for (std::size_t i = 0; i < contexts.size() && i < sweep.trend.size(); ++i) {
            const double n = sweep.trend[i].params;
            trend.push_back({contexts[i], n});
            trendLo = std::min(trendLo, n), trendHi = std::max(trendHi, n);
        }
        trendChart_->addLine(name, color, trend, 2.5);
        PlotChart::hideFromLegend(trendChart_, trendChart_->addScatter(QString(), color, {{T, sweep.here.params}}, 11));
        std::vector<QPointF> studyPoints;
        for (const auto& law : session_->paper().isoflopPowerLaws)
            if (law.family == a.family && law.sourceTable.find("context") != std::string::npos)
                studyPoints.push_back({static_cast<double>(law.context), law.coefN * std::pow(H0, law.exponentN)});
        for (const QPointF& p : studyPoints) trendLo = std::min(trendLo, p.y()), trendHi = std::max(trendHi, p.y());
        if (!studyPoints.empty()) {
            // Squares: hollow circles are the recounted runs on the left.
            auto* s = trendChart_->addScatter(tr("%1 (paper's IsoFLOP laws)").arg(name), color, studyPoints, 9, true);
            s->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
            PlotChart::hideFromLegend(trendChart_, s);
            studyPointsShown = true;
        }
    }
    // One legend entry per style, in grey, so that the legend fits one row.
    const QColor grey = theme.muted;
    if (recounted) lawChart_->addScatter(tr("runs recounted at T"), grey, {}, 8, true);
    if (recountedLaw) lawChart_->addLine(tr("their law"), grey, {}, 1.2, Qt::DashDotLine);
    if (at8k) lawChart_->addLine(tr("at 8k"), grey, {}, 1.2, Qt::DashLine);
    if (studyFit) lawChart_->addLine(tr("paper's IsoFLOP law at T"), grey, {}, 1.5, Qt::DotLine);
    if (studyPointsShown)
        trendChart_->addScatter(tr("N* of the paper's IsoFLOP laws"), grey, {}, 9, true)->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    // The slider's position as a vertical line.
    if (trendHi > 0) {
        const double lo = trendLo / 1.25, hi = trendHi * 1.25;
        PlotChart::hideFromLegend(trendChart_, trendChart_->addLine(QString(), theme.muted, {{T, lo}, {T, hi}}, 1.0, Qt::DashLine));
        trendChart_->setAxes({tr("Context length T"), true, 400, 160000}, {tr("N* (params)"), true, lo, hi, true});
    }

    QStringList numbers;
    for (const auto& a : answer_.series) {
        const auto& here = a.sweep.here;
        numbers << tr("<b style='color:%1'>%2</b> N* = %3, D* = %4 (%5 tokens/param)")
                       .arg(theme.family(a.family).name(), QString::fromStdString(a.name), formatCount(here.params), formatCount(here.tokens))
                       .arg(here.tokens / here.params, 0, 'f', 1);
    }
    numbers_->setText(tr("At T = %1 and H = %2:&nbsp;&nbsp; %3").arg(T).arg(formatTickValue(H0), numbers.join(QStringLiteral("&nbsp;&nbsp;·&nbsp;&nbsp;"))));
    emit explainChanged();
}

std::vector<ViewTable> ContextView::tables() {
    computeNow();
    return {{QStringLiteral("optima"), tr("N*, D* over context length"), analysis::contextOptimaTable(answer_)}};
}

QString ContextView::explainHtml() const {
    const double T = context();
    const bool fittedT = session_->hasFittedSurface(Family::Transformer), fittedX = session_->hasFittedSurface(Family::Xlstm);
    return tr("<h3>Context length and the compute-optimal model</h3>"
              "<p>Training compute is C = c<sub>T</sub>(N)·D: FLOPs per token times tokens. For a Transformer, "
              "attention adds about 6·n<sub>layer</sub>·T·d<sub>model</sub> FLOPs per token (training), which "
              "grows with the context length T; the mLSTM's cell does not grow with T.</p>"
              "<p>For a fixed budget H, the best model minimises the loss surface L̂(N, D) on the line "
              "c<sub>T</sub>(N)·D = H. When T grows, every Transformer token becomes more expensive, the "
              "line moves, and the optimum shifts to <b>smaller Transformers</b>. The xLSTM optimum "
              "stays put.</p>"
              "<p>Now: T = %1, H = %2. N*: Transformer %3, xLSTM %4.</p>"
              "<p>FLOPs are counted with the <b>%5</b> convention through the study's model configurations; "
              "the loss surfaces are %6 (Transformer) and %7 (xLSTM). Dotted lines (left) and hollow squares "
              "(right): the paper's own IsoFLOP laws at 2048, 8192 and 16384 tokens; hollow circles (left): "
              "the study's IsoFLOP runs with their compute recounted at T.</p>")
        .arg(T)
        .arg(formatTickValue(budget()), formatCount(optimalParams(false)), formatCount(optimalParams(true)), QString::fromStdString(session_->settings().convention),
             fittedT ? tr("fitted in this session") : tr("the paper's"), fittedX ? tr("fitted in this session") : tr("the paper's"));
}

}  // namespace scalex::gui
