#pragma once
// Colours and fonts shared by every view, so a family or a budget has one colour everywhere.
#include <QColor>
#include <QFont>
#include <QString>
#include <string>

#include "core/accounting/Family.h"

class QApplication;
class QChart;

namespace scalex::figures {

enum class ThemeKind { Light, Dark };

struct Theme {
    ThemeKind kind = ThemeKind::Light;
    QColor background, foreground, grid, axis, muted, accent, highlight;
    QString fontFamily = QStringLiteral("DejaVu Sans");
    int basePointSize = 10;
    double lineScale = 1.0;  // presentation mode and zoom: line widths and marker sizes scale by this

    static Theme light();
    static Theme dark();
    static const Theme& current();
    static void setCurrent(const Theme& theme);

    // Transformer orange, xLSTM blue, in both themes.
    QColor family(accounting::Family family) const;
    // The colour of a series: the study's families keep theirs; any other series takes the
    // index-th of twelve distinct hues, and past twelve the same hues darker, then lighter
    // (views add marker shapes so that no two series look alike).
    QColor series(const std::string& name, int index) const;
    // Sequential colours for ordered groups (budgets, context lengths, ratios): i of n.
    QColor sequential(int index, int count) const;

    void applyTo(QApplication& app) const;
    void applyTo(QChart* chart) const;
};

}  // namespace scalex::figures
