#pragma once
// The controls of a view as values, with no widget: what a figure is drawn with besides the study
// (a choice of panels, a context length, a budget). Each control has a stable name, the key that
// recipes, lessons and `scalex render --set NAME=VALUE` use; a choice has a stable key per item,
// so that rewording its text on screen breaks no saved project (the text still selects it). The
// window builds its widgets from these and writes what the user picks back into them; a headless
// render sets them from a recipe or the command line. Both draw the same figure.
#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

namespace scalex::figures {

struct ControlChoice {
    QString key;   // stable: what recipes keep
    QString text;  // on screen
};

struct Control {
    enum class Kind {
        Choice,   // one of `choices` (value: its key); `editable` also takes any text
        Switch,   // on or off (value: bool)
        Value,    // one of `values`, stepped by a slider (value: the number); `min` is the slider's first position
        Integer,  // a whole number from `min` to `max`
        Number,   // a number from `min` to `max`
        Text,     // free text
    };
    QString name;
    Kind kind = Kind::Choice;
    QString label;    // what the window writes beside it (a check box's own text)
    QString toolTip;
    std::vector<ControlChoice> choices;
    std::vector<double> values;
    double min = 0, max = 0;
    bool editable = false;
    bool enabled = true;
    QJsonValue value;

    // The index of the current choice (-1: none, or text of an editable choice).
    int choiceIndex() const;
    // The index of the current value among `values` (-1: none).
    int valueIndex() const;
};

// A control of each kind with the fields most controls set; the others keep their defaults
// (set them on the result: a slider's first position, an editable choice).
Control choiceControl(const QString& name, const QString& label, std::vector<ControlChoice> choices = {},
                      const QJsonValue& value = {}, const QString& toolTip = {});
Control switchControl(const QString& name, const QString& label, bool value, const QString& toolTip = {});
Control textControl(const QString& name, const QString& label, const QString& value, const QString& toolTip = {});
Control integerControl(const QString& name, const QString& label, int min, int max, int value, const QString& toolTip = {});
// A slider over `values` (shown as they are), its first position numbered `firstPosition`.
Control valueControl(const QString& name, const QString& label, std::vector<double> values, double value,
                     double firstPosition, const QString& toolTip = {});
// A choice whose key is its text (accelerator names, model labels: recipes keep the text).
inline ControlChoice textChoice(const QString& text) { return {text, text}; }

// The controls of one view, in the order the window shows them (and sets them: a later control's
// choices may depend on an earlier one's value).
class Controls {
public:
    Control& add(Control control);
    const std::vector<Control>& list() const { return list_; }
    Control* find(const QString& name);
    const Control* find(const QString& name) const;
    Control& at(const QString& name);
    const Control& at(const QString& name) const;

    // Typed reads of a control's value.
    QString choice(const QString& name) const;  // a choice's key (or the text of an editable choice)
    bool on(const QString& name) const;
    double number(const QString& name) const;
    QString text(const QString& name) const;

    // Replaces a choice's items; the current key stays when it is still offered, else `fallback`
    // when offered, else the first item (none when there are no items).
    void setChoices(const QString& name, std::vector<ControlChoice> choices, const QString& fallback = {});
    // Sets one control to a value as a recipe keeps it (a key, a number, a bool) or as typed on a
    // command line (a choice's text, "on", "4096"; "..." for "…"); a value shown by a slider may be
    // rounded (within 1 %), and a slider position saved before values were kept still works.
    // False, with a note naming the control and its choices, when the value is not one it takes.
    bool set(const QString& name, const QJsonValue& value, QString* note = nullptr);
    // Sets the controls named in `values` in the order of the list; a note for each value that
    // could not be set and each name the view does not have. Names of controls renamed since
    // recipes were first saved are read as the new ones.
    QStringList set(const QJsonObject& values);
    // `values` with the names of controls renamed since recipes were first saved read as the new ones.
    QJsonObject withCurrentNames(const QJsonObject& values) const;
    // Every control's value by name (what a recipe keeps).
    QJsonObject values() const;
    // One line per control: "name<TAB>kind<TAB>current value<TAB>choices or range" (`--list-controls`).
    QString describe() const;
    // "a | b (text) | ..." or "1 to 9": what a control takes, for notes and `describe`.
    static QString choicesText(const Control& control);

private:
    std::vector<Control> list_;
};

// A value typed or kept for a number or a switch.
std::optional<double> numberOf(const QJsonValue& value);
std::optional<bool> switchOf(const QJsonValue& value);

// `NAME=VALUE` assignments (`scalex render --set`) as control values; false with an error naming
// --set for a malformed or repeated one.
bool parseControlAssignments(const QStringList& assignments, QJsonObject* controls, QString* error);

}  // namespace scalex::figures
