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

using accounting::Family;

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

QJsonObject surfaceToJson(const fit::LossSurfaceParams& p) {
    return {{"log_a", p.logA}, {"log_b", p.logB}, {"log_e", p.logE}, {"alpha", p.alpha}, {"beta", p.beta}, {"gamma", p.gamma}};
}

std::optional<fit::LossSurfaceParams> surfaceFromJson(const QJsonValue& v) {
    if (!v.isObject()) return std::nullopt;
    const QJsonObject o = v.toObject();
    fit::LossSurfaceParams p;
    const std::pair<const char*, double*> fields[] = {{"log_a", &p.logA}, {"log_b", &p.logB}, {"log_e", &p.logE},
                                                      {"alpha", &p.alpha}, {"beta", &p.beta},  {"gamma", &p.gamma}};
    for (const auto& [key, out] : fields) {
        if (!o.value(QLatin1String(key)).isDouble()) return std::nullopt;
        *out = o.value(QLatin1String(key)).toDouble();
    }
    return p;
}

const char* familyKey(Family f) { return f == Family::Xlstm ? "xlstm" : "transformer"; }

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

// A control's value as a recipe keeps it (a JSON number or bool) or as typed on a command line.
std::optional<double> numberOf(const QJsonValue& v) {
    if (v.isDouble()) return v.toDouble();
    bool ok = false;
    const double n = v.toString().trimmed().toDouble(&ok);
    return v.isString() && ok && std::isfinite(n) ? std::optional<double>(n) : std::nullopt;
}

std::optional<bool> switchOf(const QJsonValue& v) {
    if (v.isBool()) return v.toBool();
    const QString t = v.toString().trimmed().toLower();
    if (t == "true" || t == "on" || t == "yes" || t == "1") return true;
    if (t == "false" || t == "off" || t == "no" || t == "0") return false;
    return std::nullopt;
}

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

bool parseControlAssignments(const QStringList& assignments, QJsonObject* controls, QString* error) {
    for (const QString& a : assignments) {
        const qsizetype eq = a.indexOf('=');
        const QString name = a.left(eq).trimmed();
        if (eq <= 0 || name.isEmpty()) {
            *error = QStringLiteral("--set: expected NAME=VALUE (see --list-controls), got '%1'").arg(a);
            return false;
        }
        if (controls->contains(name)) {
            *error = QStringLiteral("--set: the control '%1' is set twice").arg(name);
            return false;
        }
        controls->insert(name, a.mid(eq + 1));
    }
    return true;
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
    data::FigureRecipe r;
    r.view = panel.viewId().toStdString();
    r.format = format.toLower().toStdString();
    r.widthInches = style.widthInches;
    r.heightInches = style.heightInches;
    r.dpi = style.dpi;
    r.paper = style.paper;
    r.font = style.fontFamily.toStdString();
    r.dark = style.dark;
    const AnalysisSettings& a = session.settings();
    QJsonObject surfaces;
    for (Family f : {Family::Transformer, Family::Xlstm})
        if (session.hasFittedSurface(f)) surfaces[QLatin1String(familyKey(f))] = surfaceToJson(session.surface(f));
    // The analysis settings in their one JSON form (AnalysisSettings), with the fitted surfaces drawn.
    r.analysis = a.toJson();
    r.analysis.insert("fitted_surfaces", surfaces);
    r.controls = captureControls(&panel);
    const std::vector<std::string> keys = session.runKeys();
    const auto& runs = session.runs().runs;
    for (std::size_t i = 0; i < runs.size(); ++i)
        if (runs[i].userIncluded) r.include[keys[i]] = *runs[i].userIncluded;
    QList<int> selected = session.selection().values();
    std::sort(selected.begin(), selected.end());
    for (int i : selected)
        if (i >= 0 && static_cast<std::size_t>(i) < keys.size()) r.selection.push_back(keys[static_cast<std::size_t>(i)]);
    r.dataDigest = session.dataDigest();
    r.created = QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString();
    return r;
}

FigureStyle styleOf(const data::FigureRecipe& r) {
    FigureStyle s;
    s.widthInches = r.widthInches;
    s.heightInches = r.heightInches;
    s.dpi = r.dpi;
    s.paper = r.paper;
    s.fontFamily = QString::fromStdString(r.font);
    s.dark = r.dark;
    return s;
}

bool applyRecipe(MainWindow& window, const data::FigureRecipe& recipe, QStringList* warnings, QString* error) {
    const QString view = QString::fromStdString(recipe.view);
    if (!renderableViews().contains(view)) {
        *error = QStringLiteral("the recipe's view '%1' is not one of %2").arg(view, renderableViews().join(", "));
        return false;
    }
    Session* session = window.session();
    if (!recipe.dataDigest.empty() && recipe.dataDigest != session->dataDigest())
        *warnings << QStringLiteral("the runs have changed since the recipe was saved; the figure shows the runs as they are now");

    // Analysis settings in their JSON form; recipes saved before it name a few with keys of their own.
    const QJsonObject& a = recipe.analysis;
    AnalysisSettings settings = session->settings();
    if (a.contains("flop_convention")) {
        auto parsed = AnalysisSettings::fromJson(a, "recipe");
        if (!parsed) {
            *error = QStringLiteral("the recipe's analysis settings: %1").arg(QString::fromStdString(parsed.error().toString()));
            return false;
        }
        settings = *parsed;
    } else {
        if (a.contains("convention")) {
            const QString name = a.value("convention").toString();
            if (!accounting::conventionByName(name.toStdString())) {
                *error = QStringLiteral("the recipe's FLOP convention '%1' is unknown").arg(name);
                return false;
            }
            settings.convention = name.toStdString();
        }
        if (a.value("context").toDouble() > 0) settings.contextLength = a.value("context").toDouble();
        if (a.value("huber_delta").toDouble() > 0) settings.huberDelta = a.value("huber_delta").toDouble();
        if (a.value("gamma_free").isBool()) settings.fitGamma = a.value("gamma_free").toBool();
    }
    session->setSettings(settings);
    const QJsonObject surfaces = a.value("fitted_surfaces").toObject();
    for (Family f : {Family::Transformer, Family::Xlstm})
        session->setFittedSurface(f, surfaceFromJson(surfaces.value(QLatin1String(familyKey(f)))));

    // Include toggles and selection, by run key.
    const std::vector<std::string> keys = session->runKeys();
    std::unordered_map<std::string, std::size_t> index;
    for (std::size_t i = 0; i < keys.size(); ++i) index[keys[i]] = i;
    std::vector<std::optional<bool>> toggles(keys.size());
    QStringList missing;
    for (const auto& [key, on] : recipe.include) {
        const auto it = index.find(key);
        if (it == index.end()) missing << QString::fromStdString(key);
        else toggles[it->second] = on;
    }
    session->setIncludeToggles(toggles);
    QSet<int> selection;
    for (const std::string& key : recipe.selection) {
        const auto it = index.find(key);
        if (it == index.end()) missing << QString::fromStdString(key);
        else selection.insert(static_cast<int>(it->second));
    }
    session->setSelection(selection);
    if (!missing.isEmpty()) *warnings << QStringLiteral("runs of the recipe not in the project: %1").arg(missing.join(", "));

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

bool renderRecipe(const data::Project& project, const QString& projectPath, const data::FigureRecipe& recipe,
                  const QString& out, QStringList* warnings, QString* error) {
    const Theme before = Theme::current();
    Theme::setCurrent(recipe.dark && !recipe.paper ? Theme::dark() : Theme::light());
    bool ok = false;
    {
        MainWindow window;
        window.setAttribute(Qt::WA_DontShowOnScreen, true);
        window.resize(1400, 900);
        window.show();
        window.session()->setProject(project, projectPath);
        ok = applyRecipe(window, recipe, warnings, error) && exportPanel(window.currentPanel(), out, styleOf(recipe), error);
    }
    Theme::setCurrent(before);
    return ok;
}

bool renderRecipes(const QString& project, const QString& name, const QString& out, QStringList* written,
                   QStringList* warnings, QString* error) {
    data::Project loaded;
    {
        auto window = openHeadless(project, false, error);
        if (!window) return false;
        loaded = window->session()->project();
    }
    const data::FigureRecipes& recipes = loaded.recipes;
    std::vector<std::string> names;
    QStringList known;
    for (const auto& [n, r] : recipes) known << QString::fromStdString(n);
    const bool intoDirectory = name == QLatin1String("all");
    if (intoDirectory) {
        if (recipes.empty()) {
            *error = QStringLiteral("--recipe: the project %1 has no figure recipes").arg(project);
            return false;
        }
        for (const auto& [n, r] : recipes) names.push_back(n);
        if (!out.isEmpty() && !QDir().mkpath(out)) {
            *error = QStringLiteral("--out: cannot create the directory %1").arg(out);
            return false;
        }
    } else if (!recipes.count(name.toStdString())) {
        *error = QStringLiteral("--recipe: the project has no recipe '%1' (it has: %2)")
                     .arg(name, known.isEmpty() ? QStringLiteral("none") : known.join(", "));
        return false;
    } else {
        names.push_back(name.toStdString());
    }
    for (const std::string& n : names) {
        const data::FigureRecipe& recipe = recipes.at(n);
        const QString file = QString::fromStdString(n + "." + recipe.format);
        if (!intoDirectory && !out.isEmpty() && QFileInfo(out).suffix().toLower() != QString::fromStdString(recipe.format)) {
            *error = QStringLiteral("--out: recipe '%1' makes a .%2 file, not '%3'")
                         .arg(QString::fromStdString(n), QString::fromStdString(recipe.format), out);
            return false;
        }
        const QString path = intoDirectory ? QDir(out.isEmpty() ? QStringLiteral(".") : out).filePath(file)
                                           : (out.isEmpty() ? file : out);
        // A fresh window for each figure: nothing of one recipe leaks into the next.
        QStringList notes;
        if (!renderRecipe(loaded, project, recipe, path, &notes, error)) {
            *error = QStringLiteral("recipe '%1': %2").arg(QString::fromStdString(n), *error);
            return false;
        }
        for (const QString& note : notes) *warnings << QStringLiteral("recipe '%1': %2").arg(QString::fromStdString(n), note);
        *written << path;
    }
    return true;
}

bool checkRecipeTarget(const QString& project, const QString& name, QString* error) {
    if (!data::validRecipeName(name.toStdString())) {
        *error = QStringLiteral("--save-recipe: '%1' is not a recipe name (1 to 100 letters, digits, '.', '_' or '-')").arg(name);
        return false;
    }
    if (!project.endsWith(QLatin1String(".scalex"))) {
        *error = QStringLiteral("--save-recipe: recipes are kept in a .scalex project, not in '%1'").arg(project);
        return false;
    }
    return true;
}

bool saveRecipeToProject(const QString& project, const QString& name, const QString& view, const QJsonObject& controls,
                         const FigureStyle& style, const QString& format, QString* error) {
    if (!checkRecipeTarget(project, name, error)) return false;
    auto window = openHeadless(project, style.dark && !style.paper, error);
    if (!window) return false;
    if (!window->showView(view)) {
        *error = unknownViewError(view);
        return false;
    }
    if (const QStringList notes = restoreControls(window->currentPanel(), controls); !notes.isEmpty()) {
        *error = QStringLiteral("--set: the view '%1': %2").arg(view, notes.join("; "));
        return false;
    }
    window->session()->setRecipe(name.toStdString(), captureRecipe(*window->session(), *window->currentPanel(), style, format));
    if (!window->saveProject(project, false)) {
        *error = window->lastError();
        return false;
    }
    return true;
}

bool listViewControls(const QString& project, const QString& view, QString* text, QString* error) {
    if (!renderableViews().contains(view)) {
        *error = unknownViewError(view);
        return false;
    }
    auto window = openHeadless(project, false, error);
    if (!window) return false;
    window->showView(view);
    *text = describeControls(window->currentPanel());
    return true;
}

}  // namespace scalex::gui
