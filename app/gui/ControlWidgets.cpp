#include "app/gui/ControlWidgets.h"

#include <QAbstractButton>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QVariantList>
#include <cmath>

#include "app/gui/ChoiceKeys.h"

namespace scalex::gui {

using figures::Control;

QWidget* makeControlWidget(const Control& c, QWidget* parent) {
    QWidget* w = nullptr;
    switch (c.kind) {
        case Control::Kind::Choice: {
            auto* box = new QComboBox(parent);
            box->setEditable(c.editable);
            w = box;
            break;
        }
        case Control::Kind::Switch: w = new QCheckBox(c.label, parent); break;
        case Control::Kind::Value: {
            auto* slider = new QSlider(Qt::Horizontal, parent);
            w = slider;
            break;
        }
        case Control::Kind::Integer: w = new QSpinBox(parent); break;
        case Control::Kind::Number: w = new QDoubleSpinBox(parent); break;
        case Control::Kind::Text: w = new QLineEdit(parent); break;
    }
    w->setObjectName(c.name);
    showControl(w, c);
    return w;
}

void showControl(QWidget* w, const Control& c) {
    QSignalBlocker block(w);
    w->setEnabled(c.enabled);
    if (w->toolTip() != c.toolTip) w->setToolTip(c.toolTip);  // a figure may say why a control is off
    if (auto* box = qobject_cast<QComboBox*>(w)) {
        bool same = box->count() == static_cast<int>(c.choices.size());
        for (int i = 0; same && i < box->count(); ++i)
            same = choiceKey(box, i) == c.choices[static_cast<std::size_t>(i)].key && box->itemText(i) == c.choices[static_cast<std::size_t>(i)].text;
        if (!same) {
            box->clear();
            for (const auto& choice : c.choices) box->addItem(choice.text);
            for (int i = 0; i < box->count(); ++i) box->setItemData(i, c.choices[static_cast<std::size_t>(i)].key, kChoiceKeyRole);
        }
        const int index = c.choiceIndex();
        if (index >= 0) box->setCurrentIndex(index);
        else if (box->isEditable()) box->setCurrentText(c.value.toString());
        else box->setCurrentIndex(-1);
    } else if (auto* slider = qobject_cast<QSlider*>(w); slider && c.kind == Control::Kind::Integer) {
        // A slider over whole numbers, bound by the view (no values shown).
        slider->setRange(static_cast<int>(c.min), static_cast<int>(c.max));
        slider->setValue(static_cast<int>(c.value.toDouble()));
    } else if (slider) {
        QVariantList shown;
        for (double v : c.values) shown << v;
        slider->setProperty("scalexShownValues", shown);
        const int first = static_cast<int>(c.min);
        slider->setRange(first, first + std::max(0, static_cast<int>(c.values.size()) - 1));
        const int k = c.valueIndex();
        if (k >= 0) slider->setValue(first + k);
    } else if (auto* spin = qobject_cast<QSpinBox*>(w)) {
        spin->setRange(static_cast<int>(c.min), static_cast<int>(c.max));
        spin->setValue(static_cast<int>(c.value.toDouble()));
    } else if (auto* dspin = qobject_cast<QDoubleSpinBox*>(w)) {
        dspin->setRange(c.min, c.max);
        dspin->setValue(c.value.toDouble());
    } else if (auto* edit = qobject_cast<QLineEdit*>(w)) {
        if (edit->text() != c.value.toString()) edit->setText(c.value.toString());
    } else if (auto* button = qobject_cast<QAbstractButton*>(w)) {
        button->setChecked(c.value.toBool());
    }
}

QJsonValue widgetValue(const QWidget* w) {
    if (auto* box = qobject_cast<const QComboBox*>(w)) {
        const QString key = choiceKey(box, box->currentIndex());
        return key.isEmpty() ? box->currentText() : key;
    }
    if (auto* slider = qobject_cast<const QSlider*>(w)) {
        const QVariantList shown = slider->property("scalexShownValues").toList();
        const int k = slider->value() - slider->minimum();
        if (k >= 0 && k < shown.size()) return shown[k].toDouble();
        return slider->value();
    }
    if (auto* spin = qobject_cast<const QSpinBox*>(w)) return spin->value();
    if (auto* dspin = qobject_cast<const QDoubleSpinBox*>(w)) return dspin->value();
    if (auto* edit = qobject_cast<const QLineEdit*>(w)) return edit->text();
    if (auto* button = qobject_cast<const QAbstractButton*>(w)) return button->isChecked();
    return {};
}

ControlBinding::ControlBinding(figures::Controls* controls, std::function<void()> changed, QObject* parent)
    : QObject(parent), controls_(controls), changed_(std::move(changed)) {}

QWidget* ControlBinding::make(const QString& name, QWidget* parent) {
    QWidget* w = makeControlWidget(controls_->at(name), parent);
    bind(w);
    return w;
}

void ControlBinding::bind(QWidget* w) {
    widgets_.push_back(w);
    auto update = [this, w] {
        if (controls_->set(w->objectName(), widgetValue(w))) {
            if (changed_) changed_();
        } else {
            showControl(w, controls_->at(w->objectName()));  // a value the control does not take
        }
    };
    if (auto* box = qobject_cast<QComboBox*>(w)) {
        connect(box, &QComboBox::currentIndexChanged, this, update);
        if (box->isEditable() && box->lineEdit()) connect(box->lineEdit(), &QLineEdit::editingFinished, this, update);
    } else if (auto* slider = qobject_cast<QSlider*>(w)) {
        connect(slider, &QSlider::valueChanged, this, update);
    } else if (auto* spin = qobject_cast<QSpinBox*>(w)) {
        connect(spin, &QSpinBox::valueChanged, this, update);
    } else if (auto* dspin = qobject_cast<QDoubleSpinBox*>(w)) {
        connect(dspin, &QDoubleSpinBox::valueChanged, this, update);
    } else if (auto* edit = qobject_cast<QLineEdit*>(w)) {
        connect(edit, &QLineEdit::editingFinished, this, update);
    } else if (auto* button = qobject_cast<QAbstractButton*>(w)) {
        connect(button, &QAbstractButton::toggled, this, update);
    }
}

void ControlBinding::showAll() {
    for (QWidget* w : widgets_)
        if (const figures::Control* c = controls_->find(w->objectName())) showControl(w, *c);
}

}  // namespace scalex::gui
