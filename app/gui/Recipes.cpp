#include "app/gui/Recipes.h"

#include "app/gui/ChoiceKeys.h"

#include <QAbstractButton>
#include <QAbstractSlider>
#include <QComboBox>
#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QLineEdit>
#include <QSpinBox>
#include <cmath>
#include <optional>
#include <unordered_map>

#include "app/gui/MainWindow.h"
#include "app/gui/Session.h"
#include "app/figures/Theme.h"
#include "app/gui/FigureNames.h"
#include "app/gui/ViewPanel.h"
#include "core/accounting/FlopCount.h"

namespace scalex::gui {

using figures::numberOf;
using figures::switchOf;

namespace {

// The controls a recipe keeps: named by the view, not Qt's own inner widgets ("qt_...").
std::vector<QWidget*> namedControls(const QWidget* panel) {
    std::vector<QWidget*> out;
    for (QWidget* w : panel->findChildren<QWidget*>()) {
        const QString name = w->objectName();
        if (name.isEmpty() || name.startsWith(QLatin1String("qt_"))) continue;
        if (qobject_cast<QComboBox*>(w) || qobject_cast<QAbstractSlider*>(w) || qobject_cast<QLineEdit*>(w) ||
            qobject_cast<QSpinBox*>(w) || qobject_cast<QDoubleSpinBox*>(w) ||
            (qobject_cast<QAbstractButton*>(w) && static_cast<QAbstractButton*>(w)->isCheckable()))
            out.push_back(w);
    }
    return out;
}

}  // namespace

QJsonObject captureControls(const QWidget* panel) {
    if (auto* view = qobject_cast<const ViewPanel*>(panel); view && view->figure()) return view->figure()->controls().values();
    QJsonObject out;
    for (QWidget* w : namedControls(panel)) {
        const QString name = w->objectName();
        if (auto* combo = qobject_cast<QComboBox*>(w)) {
            const QString key = choiceKey(combo, combo->currentIndex());
            out[name] = key.isEmpty() ? combo->currentText() : key;
        } else if (auto* slider = qobject_cast<QAbstractSlider*>(w)) {
            const QVariantList shown = slider->property("scalexShownValues").toList();
            const int k = slider->value() - slider->minimum();
            if (k >= 0 && k < shown.size()) out[name] = shown[k].toDouble();
            else out[name] = slider->value();
        }
        else if (auto* edit = qobject_cast<QLineEdit*>(w)) out[name] = edit->text();
        else if (auto* spin = qobject_cast<QSpinBox*>(w)) out[name] = spin->value();
        else if (auto* dspin = qobject_cast<QDoubleSpinBox*>(w)) out[name] = dspin->value();
        else if (auto* button = qobject_cast<QAbstractButton*>(w)) out[name] = button->isChecked();
    }
    return out;
}

namespace {

struct ControlInfo {
    QString kind, value, choices;
};

ControlInfo infoOf(const QWidget* w) {
    ControlInfo c;
    if (auto* combo = qobject_cast<const QComboBox*>(w)) {
        c.kind = combo->isEditable() ? QStringLiteral("choice or text") : QStringLiteral("choice");
        // A choice with a key is listed as "key (text)": either selects it.
        auto shown = [combo](int i) {
            const QString key = choiceKey(combo, i);
            return key.isEmpty() ? combo->itemText(i) : QStringLiteral("%1 (%2)").arg(key, combo->itemText(i));
        };
        c.value = combo->currentIndex() >= 0 ? shown(combo->currentIndex()) : combo->currentText();
        QStringList items;
        for (int i = 0; i < combo->count(); ++i) items << shown(i);
        c.choices = items.join(QStringLiteral(" | "));
    } else if (auto* slider = qobject_cast<const QAbstractSlider*>(w)) {
        const QVariantList shown = slider->property("scalexShownValues").toList();
        const int k = slider->value() - slider->minimum();
        if (k >= 0 && k < shown.size()) {
            QStringList values;
            for (const QVariant& v : shown) values << QString::number(v.toDouble(), 'g', 10);
            c = {QStringLiteral("value"), QString::number(shown[k].toDouble(), 'g', 10), values.join(QStringLiteral(" | "))};
        } else {
            c = {QStringLiteral("integer"), QString::number(slider->value()), QStringLiteral("%1 to %2").arg(slider->minimum()).arg(slider->maximum())};
        }
    } else if (auto* edit = qobject_cast<const QLineEdit*>(w)) {
        c = {QStringLiteral("text"), edit->text(), QString()};
    } else if (auto* spin = qobject_cast<const QSpinBox*>(w)) {
        c = {QStringLiteral("integer"), QString::number(spin->value()), QStringLiteral("%1 to %2").arg(spin->minimum()).arg(spin->maximum())};
    } else if (auto* dspin = qobject_cast<const QDoubleSpinBox*>(w)) {
        c = {QStringLiteral("number"), QString::number(dspin->value()), QStringLiteral("%1 to %2").arg(dspin->minimum()).arg(dspin->maximum())};
    } else if (auto* button = qobject_cast<const QAbstractButton*>(w)) {
        c = {QStringLiteral("on/off"), button->isChecked() ? QStringLiteral("on") : QStringLiteral("off"), QStringLiteral("on | off")};
    }
    return c;
}

}  // namespace

QString describeControls(const QWidget* panel) {
    if (auto* view = qobject_cast<const ViewPanel*>(panel); view && view->figure()) return view->figure()->controls().describe();
    QString out;
    for (QWidget* w : namedControls(panel)) {
        const ControlInfo c = infoOf(w);
        out += QStringLiteral("%1\t%2\t%3\t%4\n").arg(w->objectName(), c.kind, c.value, c.choices);
    }
    return out;
}

QStringList restoreControls(QWidget* panel, const QJsonObject& incoming) {
    QStringList notes, names;
    // Choices filled from the view's results (the series with runs) are there once they are.
    if (auto* view = qobject_cast<ViewPanel*>(panel)) {
        view->computeNow();
        if (view->figure()) return view->applyControls(incoming);
    }
    // Controls renamed since recipes were first saved: a recipe naming the old control sets the
    // new one where the panel has it (the loss surface's "family" is now its "series"; the FLOP
    // breakdown's "metricBox" and "percentBox" are "quantity" and "shares"; the context view's
    // "slider" is "context").
    QJsonObject controls = incoming;
    static const std::pair<const char*, const char*> renamed[] = {{"family", "series"}, {"metricBox", "quantity"}, {"percentBox", "shares"}, {"slider", "context"}};
    for (const auto& [before, after] : renamed)
        if (controls.contains(before) && !controls.contains(after) && !panel->findChild<QWidget*>(before) &&
            panel->findChild<QWidget*>(after)) {
            controls.insert(after, controls.value(before));
            controls.remove(before);
        }
    QStringList unused = controls.keys();
    for (QWidget* w : namedControls(panel)) {
        const QString name = w->objectName();
        names << name;
        if (!controls.contains(name)) continue;
        unused.removeAll(name);
        const QJsonValue v = controls.value(name);
        bool ok = true;
        if (auto* combo = qobject_cast<QComboBox*>(w)) {
            // A choice's key, else its text; "..." as typed on a keyboard stands for the "…" the
            // choices are written with.
            int index = combo->findData(v.toString(), kChoiceKeyRole);
            if (index < 0) index = combo->findText(v.toString());
            if (index < 0) index = combo->findText(v.toString().replace(QLatin1String("..."), QString(QChar(0x2026))));
            if (index >= 0 && index == combo->currentIndex()) continue;
            if (index < 0 && combo->currentText() == v.toString()) continue;  // an empty list that was empty
            if (index >= 0) combo->setCurrentIndex(index);
            else if (combo->isEditable() && v.isString()) combo->setCurrentText(v.toString());
            else ok = false;
        } else if (auto* slider = qobject_cast<QAbstractSlider*>(w)) {
            // A slider that shows values other than its positions (the context length) takes the
            // value shown; a position still works for recipes saved before.
            const auto n = numberOf(v);
            const QVariantList shown = slider->property("scalexShownValues").toList();
            // The value as written may be rounded (3.16e20 for 10^20.5): the nearest within 1 %.
            const auto at = n ? std::find_if(shown.begin(), shown.end(), [&](const QVariant& s) {
                return std::abs(s.toDouble() - *n) <= 0.01 * std::abs(s.toDouble());
            }) : shown.end();
            if (at != shown.end()) {
                slider->setValue(slider->minimum() + static_cast<int>(at - shown.begin()));
                continue;
            }
            ok = n && *n == std::round(*n) && *n >= slider->minimum() && *n <= slider->maximum();
            if (ok) slider->setValue(static_cast<int>(*n));
        } else if (auto* edit = qobject_cast<QLineEdit*>(w)) {
            ok = v.isString();
            if (ok && edit->text() != v.toString()) {
                edit->setText(v.toString());
                emit edit->editingFinished();  // what the views listen to
            }
        } else if (auto* spin = qobject_cast<QSpinBox*>(w)) {
            const auto n = numberOf(v);
            ok = n && *n == std::round(*n) && *n >= spin->minimum() && *n <= spin->maximum();
            if (ok) spin->setValue(static_cast<int>(*n));
        } else if (auto* dspin = qobject_cast<QDoubleSpinBox*>(w)) {
            const auto n = numberOf(v);
            ok = n && *n >= dspin->minimum() && *n <= dspin->maximum();
            if (ok) dspin->setValue(*n);
        } else if (auto* button = qobject_cast<QAbstractButton*>(w)) {
            const auto b = switchOf(v);
            ok = b.has_value();
            if (ok) button->setChecked(*b);
        }
        if (!ok) {
            const QString choices = infoOf(w).choices;
            notes << QStringLiteral("the control '%1' has no value '%2'%3")
                         .arg(name, v.toVariant().toString(), choices.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(choices));
        }
    }
    for (const QString& name : unused)
        notes << QStringLiteral("the view has no control '%1' (it has %2)").arg(name, names.isEmpty() ? QStringLiteral("none") : names.join(", "));
    return notes;
}

data::FigureRecipe captureRecipe(const Session& session, const ViewPanel& panel, const FigureStyle& style,
                                 const QString& format) {
    return figures::captureRecipe(session.study(), session.selection(), panel.viewId(), captureControls(&panel), style, format);
}

bool applyRecipe(MainWindow& window, const data::FigureRecipe& recipe, QStringList* warnings, QString* error) {
    Session* session = window.session();
    // The recipe's scope on a copy of the study first: a recipe that cannot be shown changes nothing.
    analysis::Study study = session->study();
    QSet<int> selection;
    if (!figures::applyRecipeScope(study, recipe, &selection, warnings, error)) return false;
    if (study.settings().seriesBy != session->settings().seriesBy)
        if (auto e = session->groupRunsBy(study.settings().seriesBy)) {
            *error = QString::fromStdString(e->toString());
            return false;
        }
    session->setSettings(study.settings());
    std::vector<std::optional<bool>> toggles;
    toggles.reserve(study.runs().runs.size());
    for (const auto& run : study.runs().runs) toggles.push_back(run.userIncluded);
    session->setIncludeToggles(toggles);
    session->setSelection(selection);

    const QString view = QString::fromStdString(recipe.view);
    window.showView(view);
    ViewPanel* panel = window.currentPanel();
    QCoreApplication::processEvents();
    *warnings << restoreControls(panel, recipe.controls);
    panel->computeNow();
    QCoreApplication::processEvents();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);  // replaced chart items
    if (panel->charts().empty()) {
        *error = QStringLiteral("the view '%1' has no chart").arg(view);
        return false;
    }
    return true;
}

}  // namespace scalex::gui
