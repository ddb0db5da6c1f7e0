#pragma once
// File → Edit model specs…: the project's model specs as Scalex's spec JSON (core/data/SpecJson.h),
// checked as the text changes, the error naming its field ("layers[0].mixer: ..."); Save keeps the
// spec in the project under its name (Session::setSpec), and the views that draw specs and the runs
// that name it follow.
#include <QDialog>
#include <optional>

#include "core/accounting/ModelSpec.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;

namespace scalex::gui {

class Session;

class SpecEditorDialog : public QDialog {
    Q_OBJECT
public:
    explicit SpecEditorDialog(Session* session, QWidget* parent = nullptr);

    // For tests: the widgets and what Save does.
    QComboBox* specs() const { return specs_; }
    QLineEdit* name() const { return name_; }
    QPlainTextEdit* text() const { return text_; }
    QPushButton* saveButton() const { return save_; }
    QString status() const;
    // Saves the spec as it stands; false (nothing changed) when the text or the name is not valid.
    bool save();

private:
    void showSpec(int index);
    void check();

    Session* session_;
    QComboBox* specs_;
    QLineEdit* name_;
    QPlainTextEdit* text_;
    QLabel* status_;
    QPushButton* save_;
    std::optional<accounting::ModelSpec> parsed_;  // the text's spec when it is valid
    std::string source_;                           // the file the shown spec was read from
};

}  // namespace scalex::gui
