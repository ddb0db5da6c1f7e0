// The tick labels a chart shows along one of its category axes, as a reader sees them.
#pragma once

#include <QFontMetricsF>
#include <QGraphicsTextItem>
#include <QString>
#include <QtCharts/QCategoryAxis>
#include <QtCharts/QChart>
#include <algorithm>
#include <vector>

namespace scalex::test {

struct ShownAxisLabel {
    QString text;
    QRectF rect;  // the text's own extent in scene pixels, centred where the item is (its rectangle has a margin)
};

// The visible labels of `axis` in `chart`, ordered along the axis. An axis title or legend entry
// with a label's text lies off the axis and is left out.
inline std::vector<ShownAxisLabel> shownAxisLabels(QChart* chart, QCategoryAxis* axis) {
    std::vector<ShownAxisLabel> out;
    if (!chart || !axis) return out;
    const QStringList labels = axis->categoriesLabels();
    const bool horizontal = axis->orientation() == Qt::Horizontal;
    const QRectF plot = chart->mapRectToScene(chart->plotArea());
    std::vector<QGraphicsItem*> items{chart};
    while (!items.empty()) {
        QGraphicsItem* item = items.back();
        items.pop_back();
        for (QGraphicsItem* c : item->childItems()) items.push_back(c);
        auto* text = dynamic_cast<QGraphicsTextItem*>(item);
        if (!text || !text->isVisible() || !labels.contains(text->toPlainText())) continue;
        const QRectF r = text->sceneBoundingRect();
        if (horizontal ? r.center().y() < plot.bottom() : r.center().x() > plot.left()) continue;
        const QFontMetricsF metrics(text->font());
        const double width = metrics.horizontalAdvance(text->toPlainText());
        out.push_back({text->toPlainText(),
                       QRectF(r.center().x() - width / 2, r.center().y() - metrics.height() / 2, width, metrics.height())});
    }
    std::sort(out.begin(), out.end(), [horizontal](const ShownAxisLabel& a, const ShownAxisLabel& b) {
        return horizontal ? a.rect.center().x() < b.rect.center().x() : a.rect.center().y() < b.rect.center().y();
    });
    return out;
}

}  // namespace scalex::test
