#include "app/figures/Theme.h"

#include <QApplication>
#include <QPalette>
#include <QStyleFactory>
#include <QtCharts/QChart>
#include <QtCharts/QLegend>
#include <algorithm>
#include <array>

namespace scalex::figures {

namespace {
Theme& currentTheme() {
    static Theme theme = Theme::light();
    return theme;
}
}  // namespace

Theme Theme::light() {
    Theme t;
    t.kind = ThemeKind::Light;
    t.background = QColor(0xff, 0xff, 0xff);
    t.foreground = QColor(0x1f, 0x29, 0x37);
    t.grid = QColor(0xe5, 0xe7, 0xeb);
    t.axis = QColor(0x6b, 0x72, 0x80);
    t.muted = QColor(0x9c, 0xa3, 0xaf);
    t.accent = QColor(0x25, 0x63, 0xeb);
    t.highlight = QColor(0xdc, 0x26, 0x26);
    return t;
}

Theme Theme::dark() {
    Theme t;
    t.kind = ThemeKind::Dark;
    t.background = QColor(0x11, 0x18, 0x27);
    t.foreground = QColor(0xe5, 0xe7, 0xeb);
    t.grid = QColor(0x37, 0x41, 0x51);
    t.axis = QColor(0x9c, 0xa3, 0xaf);
    t.muted = QColor(0x6b, 0x72, 0x80);
    t.accent = QColor(0x60, 0xa5, 0xfa);
    t.highlight = QColor(0xf8, 0x71, 0x71);
    return t;
}

const Theme& Theme::current() { return currentTheme(); }
void Theme::setCurrent(const Theme& theme) { currentTheme() = theme; }

QColor Theme::family(accounting::Family f) const {
    if (f == accounting::Family::Transformer) return kind == ThemeKind::Light ? QColor(0xe0, 0x6c, 0x1f) : QColor(0xfb, 0x92, 0x3c);
    return kind == ThemeKind::Light ? QColor(0x1d, 0x5f, 0xb8) : QColor(0x60, 0xa5, 0xfa);
}

QColor Theme::series(const std::string& name, int index) const {
    if (name == "transformer") return family(accounting::Family::Transformer);
    if (name == "xlstm") return family(accounting::Family::Xlstm);
    // Twelve hues apart from the families' orange and blue (after Paul Tol's "muted" and "vibrant" sets).
    static const std::array<QColor, 12> hues{QColor(0x33, 0x22, 0x88), QColor(0x11, 0x77, 0x33), QColor(0xcc, 0x33, 0x11),
                                             QColor(0x88, 0x22, 0x55), QColor(0x44, 0xaa, 0x99), QColor(0x99, 0x99, 0x33),
                                             QColor(0xaa, 0x44, 0x99), QColor(0x00, 0x99, 0x88), QColor(0x66, 0x11, 0x00),
                                             QColor(0xee, 0x33, 0x77), QColor(0x55, 0x55, 0x55), QColor(0xdd, 0xaa, 0x33)};
    const int i = std::max(0, index);
    QColor c = hues[static_cast<std::size_t>(i % 12)];
    const int round = (i / 12) % 3;
    if (round == 1) c = c.darker(160);
    if (round == 2) c = c.lighter(150);
    return kind == ThemeKind::Dark ? c.lighter(140) : c;
}

QColor Theme::sequential(int index, int count) const {
    // A perceptually ordered ramp (viridis-like), trimmed at the light end for white backgrounds.
    static const std::array<QColor, 7> ramp{QColor(0x44, 0x01, 0x54), QColor(0x46, 0x33, 0x7e), QColor(0x36, 0x5c, 0x8d),
                                            QColor(0x27, 0x7f, 0x8e), QColor(0x1f, 0xa1, 0x87), QColor(0x4a, 0xc1, 0x6d),
                                            QColor(0xa0, 0xda, 0x39)};
    if (count <= 1) return ramp[3];
    const double t = std::clamp(static_cast<double>(index) / (count - 1), 0.0, 1.0) * (ramp.size() - 1);
    const int i = std::min(static_cast<int>(t), static_cast<int>(ramp.size()) - 2);
    const double f = t - i;
    const QColor a = ramp[i], b = ramp[i + 1];
    QColor c = QColor::fromRgbF(a.redF() + f * (b.redF() - a.redF()), a.greenF() + f * (b.greenF() - a.greenF()),
                                a.blueF() + f * (b.blueF() - a.blueF()));
    return kind == ThemeKind::Dark ? c.lighter(150) : c;
}

void Theme::applyTo(QApplication& app) const {
    app.setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    QPalette p;
    p.setColor(QPalette::Window, kind == ThemeKind::Light ? QColor(0xf3, 0xf4, 0xf6) : QColor(0x1f, 0x29, 0x37));
    p.setColor(QPalette::WindowText, foreground);
    p.setColor(QPalette::Base, background);
    p.setColor(QPalette::AlternateBase, kind == ThemeKind::Light ? QColor(0xf9, 0xfa, 0xfb) : QColor(0x1a, 0x22, 0x32));
    p.setColor(QPalette::Text, foreground);
    p.setColor(QPalette::Button, kind == ThemeKind::Light ? QColor(0xf9, 0xfa, 0xfb) : QColor(0x37, 0x41, 0x51));
    p.setColor(QPalette::ButtonText, foreground);
    p.setColor(QPalette::Highlight, accent);
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::ToolTipBase, background);
    p.setColor(QPalette::ToolTipText, foreground);
    p.setColor(QPalette::PlaceholderText, muted);
    app.setPalette(p);
    QFont font(fontFamily, basePointSize);
    app.setFont(font);
}

void Theme::applyTo(QChart* chart) const {
    chart->setBackgroundBrush(background);
    chart->setBackgroundRoundness(0);
    chart->setPlotAreaBackgroundVisible(false);
    chart->setTitleBrush(foreground);
    QFont title(fontFamily, basePointSize + 1);
    title.setWeight(QFont::DemiBold);
    chart->setTitleFont(title);
    chart->legend()->setLabelColor(foreground);
    chart->legend()->setFont(QFont(fontFamily, basePointSize - 1));
    // Lines get a segment of their own pen (solid and dashed look different), markers their shape.
    chart->legend()->setMarkerShape(QLegend::MarkerShapeFromSeries);
}

}  // namespace scalex::figures
