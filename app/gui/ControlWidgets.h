#pragma once
// The widgets of a figure's controls (app/figures/Controls.h): made from a control (a combo box
// with the choices' keys, a check box, a slider over the values it shows, a spin box, a field),
// named as the control so that recipes, lessons and tests find it, and kept in step with the
// figure: what the user sets goes into the figure's controls, and choices the figure refills
// (the study's series, its context lengths) come back into the widget.
#include <QJsonValue>
#include <QObject>
#include <QString>
#include <functional>
#include <vector>

#include "app/figures/Controls.h"

class QWidget;

namespace scalex::gui {

// A widget for `control`, named as it, showing its value.
QWidget* makeControlWidget(const figures::Control& control, QWidget* parent);
// Brings `widget` to `control` (choices, value, enabled), without signalling a change.
void showControl(QWidget* widget, const figures::Control& control);
// The value `widget` shows, as the control keeps it.
QJsonValue widgetValue(const QWidget* widget);

// The widgets of one figure's controls.
class ControlBinding : public QObject {
    Q_OBJECT
public:
    // `changed` runs after the user changed a control (its value already in `controls`).
    ControlBinding(figures::Controls* controls, std::function<void()> changed, QObject* parent);
    // Makes the widget of the control `name` (held by `parent`) and binds it.
    QWidget* make(const QString& name, QWidget* parent);
    // Binds a widget made elsewhere (named as its control).
    void bind(QWidget* widget);
    // Brings every bound widget to its control.
    void showAll();

private:
    figures::Controls* controls_;
    std::function<void()> changed_;
    std::vector<QWidget*> widgets_;
};

}  // namespace scalex::gui
