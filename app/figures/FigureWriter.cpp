#include "app/figures/FigureWriter.h"

#include <QBuffer>
#include <QCoreApplication>
#include <QDateTime>
#include <QFileInfo>
#include <QFontMetricsF>
#include <QGraphicsItemGroup>
#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QHashFunctions>
#include <QImage>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QRegularExpression>
#include <QSaveFile>
#include <QScopeGuard>
#include <QSvgGenerator>
#include <QtCharts/QAbstractAxis>
#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QChart>
#include <QtCharts/QLegend>
#include <QtCharts/QLegendMarker>
#include <QtCharts/QLineSeries>
#include <QtCharts/QScatterSeries>
#include <algorithm>
#include <cmath>

#include "app/figures/PlotChart.h"
#include "app/figures/Theme.h"
#include "core/data/Export.h"

namespace scalex::figures {

bool parseFigureSize(const QString& text, FigureStyle* style, QString* error) {
    const QString t = text.trimmed().toLower();
    if (t == "single") return style->widthInches = 3.25, style->heightInches = 0, true;
    if (t == "double") return style->widthInches = 6.75, style->heightInches = 0, true;
    if (t == "slides") return style->widthInches = 13.33, style->heightInches = 7.5, true;
    static const QRegularExpression re(QStringLiteral("^([0-9]*\\.?[0-9]+)(?:x([0-9]*\\.?[0-9]+))?(in|cm|mm)?$"));
    const auto m = re.match(t);
    if (!m.hasMatch()) {
        *error = QStringLiteral("--size: expected WIDTHxHEIGHT with a unit (e.g. 3.25x2.4in, 16x9cm) or single, double, slides; got '%1'").arg(text);
        return false;
    }
    const double unit = m.captured(3) == "cm" ? 1 / 2.54 : (m.captured(3) == "mm" ? 1 / 25.4 : 1.0);
    style->widthInches = m.captured(1).toDouble() * unit;
    style->heightInches = m.captured(2).isEmpty() ? 0 : m.captured(2).toDouble() * unit;
    if (style->widthInches < 1 || style->widthInches > 40 || style->heightInches < 0 || style->heightInches > 40) {
        *error = QStringLiteral("--size: %1 is outside 1 to 40 inches").arg(text);
        return false;
    }
    return true;
}

namespace {

// Font sizes matched to the physical width, as a LaTeX document sets them (8 pt in a single
// column, 9 pt in a double column, larger on slides).
// A title too long for its chart (or an axis title for its side of the plot) is set smaller, down
// to 5 pt, rather than cut off with "...". Returns whether a font changed.
bool fitTitles(QChart* chart) {
    auto fit = [](QFont font, const QString& text, double room) {
        while (QFontMetricsF(font).horizontalAdvance(text) > room && font.pointSizeF() > 5.0) font.setPointSizeF(font.pointSizeF() - 0.25);
        return font;
    };
    // Qt Charts elides a title when its text is set or its geometry changes, not when its font
    // does: the text is set again after the font.
    bool changed = false;
    const QFont title = fit(chart->titleFont(), chart->title(), chart->size().width() - 26);  // less the layout's margins
    if (title != chart->titleFont()) {
        const QString text = chart->title();
        chart->setTitleFont(title);
        chart->setTitle(QString());
        chart->setTitle(text);
        changed = true;
    }
    const QRectF plot = chart->plotArea();
    for (QAbstractAxis* a : chart->axes()) {
        // Category labels wider than their category stand upright.
        if (auto* categories = qobject_cast<QBarCategoryAxis*>(a); categories && categories->count() > 0 && a->labelsAngle() == 0) {
            double widest = 0;
            for (const QString& label : categories->categories())
                widest = std::max(widest, QFontMetricsF(a->labelsFont()).horizontalAdvance(label));
            if (widest > 0.9 * plot.width() / categories->count()) {
                a->setLabelsAngle(-90);
                a->setTruncateLabels(false);
                changed = true;
            }
        }
        if (!a->isTitleVisible() || a->titleText().isEmpty()) continue;
        const QFont font = fit(a->titleFont(), a->titleText(), (a->orientation() == Qt::Horizontal ? plot.width() : plot.height()) - 6);
        if (font == a->titleFont()) continue;
        const QString text = a->titleText();
        a->setTitleFont(font);
        a->setTitleText(QString());
        a->setTitleText(text);
        changed = true;
    }
    if (changed && chart->layout()) {
        chart->layout()->invalidate();
        chart->layout()->activate();
    }
    return changed;
}

// Font size of a figure `widthInches` wide with `charts` side by side: 7.5 pt in a single column,
// 8.5 pt across two, larger on slides; a point less where each chart is under 2 in wide.
double basePointSize(double widthInches, std::size_t charts) {
    const double pt = widthInches <= 3.6 ? 7.5 : (widthInches <= 7.5 ? 8.5 : 14);
    return widthInches / static_cast<double>(std::max<std::size_t>(charts, 1)) < 2.0 ? pt - 1.0 : pt;
}

void applyPaperStyle(QChart* chart, const FigureStyle& style, double widthInches, std::size_t charts) {
    const double pt = basePointSize(widthInches, charts);
    QFont base(style.fontFamily);
    base.setPointSizeF(pt);
    chart->setBackgroundBrush(Qt::white);
    chart->setBackgroundPen(Qt::NoPen);
    chart->setBackgroundRoundness(0);
    chart->setDropShadowEnabled(false);
    chart->setMargins(QMargins(2, 2, 2, 2));
    QFont title = base;
    title.setPointSizeF(pt + 0.5);
    title.setWeight(QFont::DemiBold);
    chart->setTitleFont(title);
    chart->setTitleBrush(Qt::black);
    QFont small = base;
    small.setPointSizeF(pt - 0.5);
    chart->legend()->setFont(small);
    chart->legend()->setLabelColor(Qt::black);
    for (QAbstractAxis* a : chart->axes()) {
        a->setLabelsFont(small);
        a->setTitleFont(base);
        a->setLabelsBrush(Qt::black);
        a->setTitleBrush(Qt::black);
        QPen line(QColor(0x40, 0x40, 0x40));
        line.setWidthF(0.6);
        a->setLinePen(line);
        QPen grid(QColor(0xe0, 0xe0, 0xe0));
        grid.setWidthF(0.4);
        a->setGridLinePen(grid);
    }
}

// Logical units of the figure: 1/96 inch, the resolution Qt lays charts and fonts out at, so
// point sizes come out at their physical size on paper.
constexpr double kUnitsPerInch = 96.0;

// Thinner lines and smaller markers than on screen, where the figure is a few inches wide.
void shrinkMarks(QChart* chart) {
    // Figures never take up presentation mode's or the zoom's thicker marks.
    const double screen = 1.0 / Theme::current().lineScale;
    for (QAbstractSeries* s : chart->series()) {
        if (auto* scatter = qobject_cast<QScatterSeries*>(s)) {
            scatter->setMarkerSize(std::max(3.0, scatter->markerSize() * 0.6 * screen));
            QPen pen = scatter->pen();
            pen.setWidthF(pen.widthF() * 0.6 * screen);
            scatter->setPen(pen);
        } else if (auto* line = qobject_cast<QLineSeries*>(s)) {
            QPen pen = line->pen();
            pen.setWidthF(std::max(0.6, pen.widthF() * 0.7 * screen));
            line->setPen(pen);
        }
    }
}

// Where the charts go: `columns` side by side, in as many rows as they need.
struct Grid {
    std::size_t columns = 1;
    std::size_t rows = 1;
    QRectF cell(std::size_t i, double widthUnits, double heightUnits) const {
        const double w = widthUnits / static_cast<double>(columns), h = heightUnits / static_cast<double>(rows);
        return QRectF(w * static_cast<double>(i % columns), h * static_cast<double>(i / columns), w, h);
    }
};

// Charts stand side by side while each keeps at least 1.6 in and the category labels of each fit
// upright in its share of the width; else they wrap into rows (four panels in a single column
// make two rows of two), down to one chart per row, each as wide as the figure. (Qt Charts
// places turned labels by their unturned width and hides the first and last, so turning them is
// no remedy.)
Grid chooseGrid(const std::vector<QChart*>& charts, double widthUnits) {
    const std::size_t n = charts.size();
    constexpr double kBesidePlot = 48;  // the vertical axis' labels and title, and the margins
    constexpr double kMinChart = 1.6 * kUnitsPerInch;
    auto crowded = [&](std::size_t columns) {
        const double each = widthUnits / static_cast<double>(columns);
        if (columns > 1 && each < kMinChart) return true;
        for (QChart* chart : charts)
            for (QAbstractAxis* a : chart->axes(Qt::Horizontal)) {
                auto* categories = qobject_cast<QBarCategoryAxis*>(a);
                if (!categories || categories->count() == 0) continue;
                // Qt elides a category label well before it reaches its neighbour's: on paper a label
                // is whole, and Qt hides the labels that would overlap.
                a->setTruncateLabels(false);
                double widest = 0;
                for (const QString& label : categories->categories())
                    widest = std::max(widest, QFontMetricsF(a->labelsFont()).horizontalAdvance(label));
                if (columns > 1 && widest > 0.9 * (each - kBesidePlot) / categories->count()) return true;
            }
        return false;
    };
    // Full rows only: 4 panels go 4, 2 or 1 to a row.
    std::size_t columns = std::max<std::size_t>(n, 1);
    while (columns > 1 && (n % columns != 0 || crowded(columns))) --columns;
    return Grid{columns, (n + columns - 1) / columns};
}

// Sizes each chart for its cell of the figure and rebuilds its ticks for that size.
void layoutCharts(const std::vector<QChart*>& charts, const Grid& grid, double widthUnits, double heightUnits) {
    for (std::size_t i = 0; i < charts.size(); ++i) {
        charts[i]->resize(grid.cell(i, widthUnits, heightUnits).size());
        if (auto* plot = qobject_cast<PlotChart*>(charts[i])) plot->setAxes(plot->xSpec(), plot->ySpec());
    }
}

// One legend for the whole figure, below its charts, in rows that wrap at the figure's width:
// a chart's own legend elides entries that do not fit its width, and two panels would repeat
// the entries they share. Drawn as a scene, as the charts are, so text sizes agree with theirs.
struct LegendEntry {
    enum class Kind { Marker, Line, Box };
    QString label;
    Kind kind = Kind::Box;
    QPen pen;
    QBrush brush;
    bool square = false;  // a marker drawn as a square, not a disc
};

std::vector<LegendEntry> figureLegend(const std::vector<QChart*>& charts) {
    std::vector<LegendEntry> out;
    for (QChart* chart : charts) {
        if (!chart->legend()->isVisible()) continue;
        for (QLegendMarker* m : chart->legend()->markers()) {
            if (m->label().isEmpty() || PlotChart::hiddenFromLegend(m->series())) continue;
            LegendEntry e;
            e.label = m->label();
            if (auto* scatter = qobject_cast<QScatterSeries*>(m->series())) {
                e.kind = LegendEntry::Kind::Marker;
                e.pen = scatter->pen();
                e.brush = QBrush(scatter->color());
                e.square = scatter->markerShape() == QScatterSeries::MarkerShapeRectangle;
            } else if (auto* line = qobject_cast<QLineSeries*>(m->series())) {
                e.kind = LegendEntry::Kind::Line;
                e.pen = line->pen();
            } else {
                e.brush = m->brush();
                e.pen = QPen(m->brush().color().darker(115), 0.6);
            }
            const bool seen = std::any_of(out.begin(), out.end(), [&](const LegendEntry& o) {
                return o.label == e.label && o.kind == e.kind && o.pen.color() == e.pen.color() && o.brush.color() == e.brush.color() &&
                       o.square == e.square;
            });
            if (!seen) out.push_back(e);
        }
    }
    return out;
}

// Lays the entries out in centred rows no wider than `width` and returns the scene's height.
double buildLegend(QGraphicsScene& scene, const std::vector<LegendEntry>& entries, const QFont& font, const QColor& text,
                   double width) {
    if (entries.empty()) return 0;
    const QFontMetricsF metrics(font);
    const double lineHeight = metrics.height() * 1.3, swatch = metrics.height() * 1.5, gap = metrics.height() * 1.1;
    const double pad = metrics.height() * 0.4;
    struct Placed {
        QGraphicsItemGroup* group;
        double width;
    };
    std::vector<std::vector<Placed>> rows(1);
    double rowWidth = 0;
    for (const LegendEntry& e : entries) {
        auto* group = new QGraphicsItemGroup();
        scene.addItem(group);
        const double mid = lineHeight / 2;
        if (e.kind == LegendEntry::Kind::Line) {
            QPen pen = e.pen;
            pen.setWidthF(std::max(1.0, pen.widthF()));
            auto* line = new QGraphicsLineItem(0, mid, swatch, mid);
            line->setPen(pen);
            group->addToGroup(line);
        } else if (e.kind == LegendEntry::Kind::Marker) {
            const double d = metrics.height() * (e.square ? 0.5 : 0.55);
            const QRectF box(swatch / 2 - d / 2, mid - d / 2, d, d);
            QAbstractGraphicsShapeItem* mark = e.square ? static_cast<QAbstractGraphicsShapeItem*>(new QGraphicsRectItem(box))
                                                        : new QGraphicsEllipseItem(box);
            mark->setPen(e.pen);
            mark->setBrush(e.brush);
            group->addToGroup(mark);
        } else {
            const double h = metrics.height() * 0.6;
            auto* box = new QGraphicsRectItem(swatch * 0.15, mid - h / 2, swatch * 0.7, h);
            box->setPen(e.pen);
            box->setBrush(e.brush);
            group->addToGroup(box);
        }
        auto* label = new QGraphicsSimpleTextItem(e.label);
        label->setFont(font);
        label->setBrush(text);
        label->setPos(swatch + metrics.height() * 0.3, mid - label->boundingRect().height() / 2);
        group->addToGroup(label);
        const double w = swatch + metrics.height() * 0.3 + label->boundingRect().width();
        if (!rows.back().empty() && rowWidth + gap + w > width - 2 * pad) {
            rows.emplace_back();
            rowWidth = 0;
        }
        rowWidth += (rows.back().empty() ? 0 : gap) + w;
        rows.back().push_back({group, w});
    }
    for (std::size_t r = 0; r < rows.size(); ++r) {
        double total = 0;
        for (const Placed& p : rows[r]) total += p.width;
        total += gap * static_cast<double>(rows[r].size() - 1);
        double x = std::max(pad, (width - total) / 2);
        for (const Placed& p : rows[r]) {
            p.group->setPos(x, lineHeight * static_cast<double>(r));
            x += p.width + gap;
        }
    }
    const double height = lineHeight * static_cast<double>(rows.size()) + pad;
    scene.setSceneRect(0, 0, width, height);
    return height;
}

// Draws the charts in their cells of `grid` into `painter`, whose coordinates are 1/96 inch.
// The legend scene, when there is one, goes below them across the whole width.
void paint(QPainter& painter, const std::vector<QChart*>& charts, const Grid& grid, double widthPt, double heightPt,
           QGraphicsScene* legend) {
    const double legendHeight = legend ? legend->sceneRect().height() : 0;
    for (std::size_t i = 0; i < charts.size(); ++i) {
        QChart* chart = charts[i];
        chart->scene()->render(&painter, grid.cell(i, widthPt, heightPt - legendHeight), chart->sceneBoundingRect(),
                               Qt::IgnoreAspectRatio);
    }
    if (legend) legend->render(&painter, QRectF(0, heightPt - legendHeight, widthPt, legendHeight), legend->sceneRect());
}

// QPdfWriter stamps the time of writing into the document information. A figure is the same
// figure whenever it is drawn, so the stamp becomes SOURCE_DATE_EPOCH when that is set (the
// reproducible-builds convention) and blanks otherwise. The entry keeps its length, so the
// cross-reference offsets stay valid.
void fixPdfCreationDate(QByteArray* pdf) {
    static const QRegularExpression stamp(QStringLiteral("/CreationDate \\(D:[0-9Z+\\-' ]*\\)"));
    const QString text = QString::fromLatin1(*pdf);
    const auto m = stamp.match(text);
    if (!m.hasMatch()) return;
    QByteArray entry(m.capturedLength(), ' ');
    bool ok = false;
    const qint64 epoch = qEnvironmentVariable("SOURCE_DATE_EPOCH").toLongLong(&ok);
    if (ok && epoch >= 0) {
        const QByteArray fixed = "/CreationDate (D:" +
                                 QDateTime::fromSecsSinceEpoch(epoch, Qt::UTC).toString(QStringLiteral("yyyyMMddHHmmss")).toLatin1() + "Z)";
        if (fixed.size() <= entry.size()) entry.replace(0, fixed.size(), fixed);
    }
    pdf->replace(m.capturedStart(), m.capturedLength(), entry);
}

bool writeFile(const QString& path, const QByteArray& bytes, QString* error) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
        *error = QStringLiteral("--out: cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

}  // namespace

bool writeFigure(const std::vector<QChart*>& charts, const QString& what, const QString& out, const FigureStyle& style, QString* error) {
    const QString suffix = QFileInfo(out).suffix().toLower();
    if (const QString problem = figureSuffixProblem(out); !problem.isEmpty()) {
        *error = problem;
        return false;
    }
    if (charts.empty()) {
        *error = QStringLiteral("'%1' has no chart").arg(what);
        return false;
    }
    const double widthIn = style.widthInches;
    const bool autoHeight = !(style.heightInches > 0);
    const double wPt = widthIn * kUnitsPerInch;
    // Style first so the layout at the figure's size sees the figure's fonts and legend; the
    // axes rebuilt for that size take the style again. The fonts depend on how many charts share
    // the width, and whether they share it depends on the fonts' labels.
    Grid grid{charts.size(), 1};
    if (style.paper)
        for (QChart* c : charts) {
            applyPaperStyle(c, style, widthIn, grid.columns);
            shrinkMarks(c);
        }
    grid = chooseGrid(charts, wPt);
    if (style.paper && grid.columns != charts.size())
        for (QChart* c : charts) applyPaperStyle(c, style, widthIn, grid.columns);
    // Charts side by side in a single column get more height: their fonts do not shrink with them.
    const double rows = static_cast<double>(grid.rows);
    const double aspect = grid.columns > 1 ? (widthIn < 4.5 ? 0.55 : 0.42) * (grid.rows > 1 ? 0.75 * rows : 1.0)
                                           : (grid.rows > 1 ? 0.55 * rows : 0.75);
    double heightIn = autoHeight ? widthIn * aspect : style.heightInches;
    std::vector<QSizeF> shown;  // the on-screen sizes, restored after painting
    for (QChart* c : charts) shown.push_back(c->size());
    // The figure's own legend replaces the charts' (restored after painting).
    const std::vector<LegendEntry> entries = figureLegend(charts);
    std::vector<bool> legendShown;
    for (QChart* c : charts) {
        legendShown.push_back(c->legend()->isVisible());
        if (!entries.empty()) c->legend()->setVisible(false);
    }
    QGraphicsScene legendScene;
    QFont legendFont = style.paper ? QFont(style.fontFamily) : charts.front()->legend()->font();
    if (style.paper) legendFont.setPointSizeF(basePointSize(widthIn, grid.columns) - 0.5);
    const double legendHeight =
        buildLegend(legendScene, entries, legendFont, style.paper ? QColor(Qt::black) : Theme::current().foreground, wPt);
    if (!style.paper) legendScene.setBackgroundBrush(charts.front()->backgroundBrush());
    QGraphicsScene* legend = entries.empty() ? nullptr : &legendScene;
    // An automatic height is the charts' and the legend's below them; a given height is shared.
    if (autoHeight) heightIn += legendHeight / kUnitsPerInch;
    const double hPt = heightIn * kUnitsPerInch;
    layoutCharts(charts, grid, wPt, hPt - legendHeight);
    if (style.paper)
        for (QChart* c : charts) applyPaperStyle(c, style, widthIn, grid.columns);
    // Let the charts lay out at their new size, and drop the items of the axes they replaced.
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    QCoreApplication::processEvents();
    if (style.paper) {
        bool changed = false;
        for (QChart* c : charts) changed = fitTitles(c) || changed;
        if (changed) {
            // Lay the axes out again for their new labels: a change of geometry does that.
            for (QChart* c : charts) {
                const QSizeF size = c->size();
                c->resize(size + QSizeF(1, 1));
                QCoreApplication::processEvents();
                c->resize(size);
            }
            QCoreApplication::processEvents();
        }
    }
    // Tick labels that would run into each other at the figure's size dropped, as on screen.
    for (QChart* c : charts)
        if (auto* plot = qobject_cast<PlotChart*>(c)) plot->thinTickLabels();
    QCoreApplication::processEvents();

    QByteArray bytes;
    if (suffix == "png") {
        const QSize px(qRound(widthIn * style.dpi), qRound(heightIn * style.dpi));
        QImage image(px, QImage::Format_ARGB32);
        image.fill(Qt::white);
        image.setDotsPerMeterX(qRound(style.dpi / 0.0254));
        image.setDotsPerMeterY(qRound(style.dpi / 0.0254));
        {
            QPainter p(&image);
            p.setRenderHint(QPainter::Antialiasing);
            p.setRenderHint(QPainter::TextAntialiasing);
            p.scale(style.dpi / kUnitsPerInch, style.dpi / kUnitsPerInch);
            paint(p, charts, grid, wPt, hPt, legend);
        }
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::WriteOnly);
        image.save(&buffer, "PNG");
    } else if (suffix == "svg") {
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::WriteOnly);
        QSvgGenerator svg;
        svg.setOutputDevice(&buffer);
        svg.setSize(QSize(qRound(wPt), qRound(hPt)));
        svg.setViewBox(QRectF(0, 0, wPt, hPt));
        svg.setResolution(static_cast<int>(kUnitsPerInch));
        svg.setTitle(QStringLiteral("Scalex: %1").arg(what));
        svg.setDescription(QStringLiteral("Rendered by Scalex"));
        QPainter p(&svg);
        paint(p, charts, grid, wPt, hPt, legend);
    } else {
        // The PDF engine keeps its fonts in a hash and writes them in its order: with Qt's random
        // seed, two renders of one figure would differ in the order of the font objects.
        QHashSeed::setDeterministicGlobalSeed();
        const auto randomAgain = qScopeGuard([] { QHashSeed::resetRandomGlobalSeed(); });
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::WriteOnly);
        QPdfWriter pdf(&buffer);
        pdf.setCreator(QStringLiteral("Scalex"));
        pdf.setTitle(QStringLiteral("Scalex: %1").arg(what));
        pdf.setPageSize(QPageSize(QSizeF(widthIn, heightIn), QPageSize::Inch, QString(), QPageSize::ExactMatch));
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        pdf.setResolution(static_cast<int>(10 * kUnitsPerInch));
        QPainter p(&pdf);
        p.scale(10.0, 10.0);  // figure units -> the writer's resolution
        paint(p, charts, grid, wPt, hPt, legend);
    }
    if (suffix == "pdf") fixPdfCreationDate(&bytes);
    for (std::size_t i = 0; i < charts.size(); ++i) {
        charts[i]->legend()->setVisible(legendShown[i]);
        charts[i]->resize(shown[i]);
        if (auto* plot = qobject_cast<PlotChart*>(charts[i])) plot->setAxes(plot->xSpec(), plot->ySpec());
    }
    QSaveFile file(out);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
        *error = QStringLiteral("--out: cannot write %1: %2").arg(out, file.errorString());
        return false;
    }
    return true;
}


QStringList figureSuffixes() { return {QStringLiteral("pdf"), QStringLiteral("svg"), QStringLiteral("png")}; }

QString figureSuffixProblem(const QString& out) {
    if (figureSuffixes().contains(QFileInfo(out).suffix().toLower())) return {};
    return QStringLiteral("'%1' must end in .pdf, .svg or .png").arg(out);
}

QStringList tableSuffixes() { return {QStringLiteral("tex"), QStringLiteral("csv"), QStringLiteral("json")}; }

bool writeTable(const std::vector<FigureTable>& tables, const QString& viewId, const QString& tableId, const QString& out,
                     QString* error) {
    const QString suffix = QFileInfo(out).suffix().toLower();
    if (!tableSuffixes().contains(suffix)) {
        *error = QStringLiteral("'%1' must end in .tex (LaTeX booktabs), .csv or .json (records)").arg(out);
        return false;
    }
    if (tables.empty()) {
        *error = QStringLiteral("the view '%1' has no table to export").arg(viewId);
        return false;
    }
    const FigureTable* chosen = tableId.isEmpty() ? &tables.front() : nullptr;
    QStringList ids;
    for (const FigureTable& t : tables) {
        ids << t.id;
        if (t.id == tableId) chosen = &t;
    }
    if (!chosen) {
        *error = QStringLiteral("--table: the view '%1' has no table '%2' (it has %3)").arg(viewId, tableId, ids.join(", "));
        return false;
    }
    const QByteArray bytes = suffix == "tex"   ? data::toLatex(chosen->table)
                             : suffix == "csv" ? data::toCsv(chosen->table)
                                               : data::toRecordsJson(chosen->table);
    return writeFile(out, bytes, error);
}

}  // namespace scalex::figures
