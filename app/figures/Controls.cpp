#include "app/figures/Controls.h"

#include <QChar>
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace scalex::figures {

std::optional<double> numberOf(const QJsonValue& v) {
    if (v.isDouble()) return std::isfinite(v.toDouble()) ? std::optional<double>(v.toDouble()) : std::nullopt;
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

int Control::choiceIndex() const {
    const QString key = value.toString();
    for (std::size_t i = 0; i < choices.size(); ++i)
        if (choices[i].key == key) return static_cast<int>(i);
    return -1;
}

int Control::valueIndex() const {
    if (!value.isDouble()) return -1;
    const double v = value.toDouble();
    for (std::size_t i = 0; i < values.size(); ++i)
        if (values[i] == v) return static_cast<int>(i);
    return -1;
}

namespace {

Control makeControl(Control::Kind kind, const QString& name, const QString& label, const QString& toolTip) {
    Control c;
    c.kind = kind;
    c.name = name;
    c.label = label;
    c.toolTip = toolTip;
    return c;
}

}  // namespace

Control choiceControl(const QString& name, const QString& label, std::vector<ControlChoice> choices, const QJsonValue& value,
                      const QString& toolTip) {
    Control c = makeControl(Control::Kind::Choice, name, label, toolTip);
    c.choices = std::move(choices);
    c.value = value;
    return c;
}

Control switchControl(const QString& name, const QString& label, bool value, const QString& toolTip) {
    Control c = makeControl(Control::Kind::Switch, name, label, toolTip);
    c.value = value;
    return c;
}

Control textControl(const QString& name, const QString& label, const QString& value, const QString& toolTip) {
    Control c = makeControl(Control::Kind::Text, name, label, toolTip);
    c.value = value;
    return c;
}

Control integerControl(const QString& name, const QString& label, int min, int max, int value, const QString& toolTip) {
    Control c = makeControl(Control::Kind::Integer, name, label, toolTip);
    c.min = min;
    c.max = max;
    c.value = value;
    return c;
}

Control valueControl(const QString& name, const QString& label, std::vector<double> values, double value, double firstPosition,
                     const QString& toolTip) {
    Control c = makeControl(Control::Kind::Value, name, label, toolTip);
    c.values = std::move(values);
    c.value = value;
    c.min = firstPosition;
    return c;
}

Control& Controls::add(Control control) {
    list_.push_back(std::move(control));
    return list_.back();
}

Control* Controls::find(const QString& name) {
    for (Control& c : list_)
        if (c.name == name) return &c;
    return nullptr;
}

const Control* Controls::find(const QString& name) const { return const_cast<Controls*>(this)->find(name); }

Control& Controls::at(const QString& name) {
    if (Control* c = find(name)) return *c;
    throw std::logic_error("no control named " + name.toStdString());
}

const Control& Controls::at(const QString& name) const { return const_cast<Controls*>(this)->at(name); }

QString Controls::choice(const QString& name) const { return at(name).value.toString(); }
bool Controls::on(const QString& name) const { return at(name).value.toBool(); }
double Controls::number(const QString& name) const { return at(name).value.toDouble(); }
QString Controls::text(const QString& name) const { return at(name).value.toString(); }

void Controls::setChoices(const QString& name, std::vector<ControlChoice> choices, const QString& fallback) {
    Control& c = at(name);
    const QString current = c.value.toString();
    c.choices = std::move(choices);
    auto offered = [&c](const QString& key) {
        return std::any_of(c.choices.begin(), c.choices.end(), [&](const ControlChoice& x) { return x.key == key; });
    };
    if (offered(current) || (c.editable && !current.isEmpty())) return;
    if (!fallback.isEmpty() && offered(fallback)) c.value = fallback;
    else c.value = c.choices.empty() ? QJsonValue(QString()) : QJsonValue(c.choices.front().key);
}

namespace {

QString shownChoice(const ControlChoice& c) {
    return c.key.isEmpty() || c.key == c.text ? c.text : QStringLiteral("%1 (%2)").arg(c.key, c.text);
}

QString kindName(const Control& c) {
    switch (c.kind) {
        case Control::Kind::Choice: return c.editable ? QStringLiteral("choice or text") : QStringLiteral("choice");
        case Control::Kind::Switch: return QStringLiteral("on/off");
        case Control::Kind::Value: return QStringLiteral("value");
        case Control::Kind::Integer: return QStringLiteral("integer");
        case Control::Kind::Number: return QStringLiteral("number");
        case Control::Kind::Text: return QStringLiteral("text");
    }
    return {};
}

QString shownValue(const Control& c) {
    switch (c.kind) {
        case Control::Kind::Choice: {
            const int i = c.choiceIndex();
            return i >= 0 ? shownChoice(c.choices[static_cast<std::size_t>(i)]) : c.value.toString();
        }
        case Control::Kind::Switch: return c.value.toBool() ? QStringLiteral("on") : QStringLiteral("off");
        case Control::Kind::Value: return QString::number(c.value.toDouble(), 'g', 10);
        case Control::Kind::Integer:
        case Control::Kind::Number: return QString::number(c.value.toDouble());
        case Control::Kind::Text: return c.value.toString();
    }
    return {};
}

// Names of controls renamed since recipes were first saved, read as the new ones (the loss
// surface's "family" is its "series"; the FLOP breakdown's "metricBox" and "percentBox" are
// "quantity" and "shares"; the context view's "slider" is "context"; the loss surface's "delta" is
// "huber_delta", as the settings and the verbs name it).
constexpr std::pair<const char*, const char*> kRenamed[] = {{"family", "series"},   {"metricBox", "quantity"},
                                                            {"percentBox", "shares"}, {"slider", "context"},
                                                            {"delta", "huber_delta"}};

}  // namespace

QString Controls::choicesText(const Control& c) {
    switch (c.kind) {
        case Control::Kind::Choice: {
            QStringList items;
            for (const ControlChoice& x : c.choices) items << shownChoice(x);
            return items.join(QStringLiteral(" | "));
        }
        case Control::Kind::Switch: return QStringLiteral("on | off");
        case Control::Kind::Value: {
            QStringList items;
            for (double v : c.values) items << QString::number(v, 'g', 10);
            return items.join(QStringLiteral(" | "));
        }
        case Control::Kind::Integer:
        case Control::Kind::Number: return QStringLiteral("%1 to %2").arg(c.min).arg(c.max);
        case Control::Kind::Text: return {};
    }
    return {};
}

bool Controls::set(const QString& name, const QJsonValue& v, QString* note) {
    Control* c = find(name);
    if (!c) {
        if (note) *note = QStringLiteral("the view has no control '%1'").arg(name);
        return false;
    }
    bool ok = true;
    switch (c->kind) {
        case Control::Kind::Choice: {
            // A choice's key, else its text; "..." as typed on a keyboard stands for the "…" the
            // choices are written with.
            const QString s = v.isDouble() ? QString::number(v.toDouble(), 'g', 10) : v.toString();
            QString typed = s;
            typed.replace(QLatin1String("..."), QString(QChar(0x2026)));
            auto it = std::find_if(c->choices.begin(), c->choices.end(), [&](const ControlChoice& x) { return x.key == s; });
            if (it == c->choices.end())
                it = std::find_if(c->choices.begin(), c->choices.end(), [&](const ControlChoice& x) { return x.text == s || x.text == typed; });
            if (it != c->choices.end()) c->value = it->key;
            else if (c->value.toString() == s) break;  // an empty list that was empty
            else if (c->editable && (v.isString() || v.isDouble()) && !s.trimmed().isEmpty()) c->value = s.trimmed();
            else ok = false;
            break;
        }
        case Control::Kind::Switch: {
            const auto b = switchOf(v);
            ok = b.has_value();
            if (ok) c->value = *b;
            break;
        }
        case Control::Kind::Value: {
            // The value as written may be rounded (3.16e20 for 10^20.5): the nearest within 1 %.
            const auto n = numberOf(v);
            const auto at = n ? std::find_if(c->values.begin(), c->values.end(),
                                             [&](double x) { return std::abs(x - *n) <= 0.01 * std::abs(x); })
                              : c->values.end();
            if (at != c->values.end()) {
                c->value = *at;
                break;
            }
            // A slider position, as recipes kept it before they kept the value shown.
            const double last = c->min + static_cast<double>(c->values.size()) - 1;
            ok = n && *n == std::round(*n) && *n >= c->min && *n <= last;
            if (ok) c->value = c->values[static_cast<std::size_t>(*n - c->min)];
            break;
        }
        case Control::Kind::Integer: {
            const auto n = numberOf(v);
            ok = n && *n == std::round(*n) && *n >= c->min && *n <= c->max;
            if (ok) c->value = *n;
            break;
        }
        case Control::Kind::Number: {
            const auto n = numberOf(v);
            ok = n && *n >= c->min && *n <= c->max;
            if (ok) c->value = *n;
            break;
        }
        case Control::Kind::Text:
            ok = v.isString();
            if (ok) c->value = v.toString();
            break;
    }
    if (!ok && note) {
        const QString choices = choicesText(*c);
        *note = QStringLiteral("the control '%1' has no value '%2'%3")
                    .arg(name, v.toVariant().toString(), choices.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(choices));
    }
    return ok;
}

QJsonObject Controls::withCurrentNames(const QJsonObject& incoming) const {
    QJsonObject values = incoming;
    for (const auto& [before, after] : kRenamed)
        if (values.contains(QLatin1String(before)) && !values.contains(QLatin1String(after)) && !find(QLatin1String(before)) &&
            find(QLatin1String(after))) {
            values.insert(QLatin1String(after), values.value(QLatin1String(before)));
            values.remove(QLatin1String(before));
        }
    return values;
}

QStringList Controls::set(const QJsonObject& incoming) {
    const QJsonObject values = withCurrentNames(incoming);
    QStringList notes, names;
    QStringList unused = values.keys();
    for (const Control& c : list_) {
        names << c.name;
        if (!values.contains(c.name)) continue;
        unused.removeAll(c.name);
        QString note;
        if (!set(c.name, values.value(c.name), &note)) notes << note;
    }
    for (const QString& name : unused)
        notes << QStringLiteral("the view has no control '%1' (it has %2)").arg(name, names.isEmpty() ? QStringLiteral("none") : names.join(", "));
    return notes;
}

QJsonObject Controls::values() const {
    QJsonObject out;
    for (const Control& c : list_) out.insert(c.name, c.value);
    return out;
}

QString Controls::describe() const {
    QString out;
    for (const Control& c : list_) out += QStringLiteral("%1\t%2\t%3\t%4\n").arg(c.name, kindName(c), shownValue(c), choicesText(c));
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

}  // namespace scalex::figures
