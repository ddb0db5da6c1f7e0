#include "app/gui/SpecEditorDialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

#include "app/gui/Session.h"
#include "core/accounting/ModelConfig.h"
#include "core/accounting/SpecAccounting.h"
#include "core/data/Project.h"
#include "core/data/SpecJson.h"

namespace scalex::gui {

namespace {
// A new spec starts as the paper's Transformer at d_model 1024 (App. "Model Configurations").
accounting::ModelSpec newSpec() {
    accounting::ModelSpec s =
        accounting::fromPaperConfig(accounting::makeStudyConfig(accounting::Family::Transformer, 1024, 8, 8));
    s.name = "new-model";
    return s;
}
}  // namespace

SpecEditorDialog::SpecEditorDialog(Session* session, QWidget* parent)
    : QDialog(parent),
      session_(session),
      specs_(new QComboBox(this)),
      name_(new QLineEdit(this)),
      text_(new QPlainTextEdit(this)),
      status_(new QLabel(this)) {
    setWindowTitle(tr("Model specs"));
    resize(640, 720);
    for (const auto& s : session_->specs()) specs_->addItem(QString::fromStdString(s.name));
    specs_->addItem(tr("New spec…"));
    text_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    text_->setLineWrapMode(QPlainTextEdit::NoWrap);
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* form = new QFormLayout;
    form->addRow(tr("Spec"), specs_);
    form->addRow(tr("Name"), name_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Close, this);
    save_ = buttons->button(QDialogButtonBox::Save);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(text_, 1);
    layout->addWidget(status_);
    layout->addWidget(buttons);

    connect(specs_, &QComboBox::currentIndexChanged, this, &SpecEditorDialog::showSpec);
    connect(text_, &QPlainTextEdit::textChanged, this, &SpecEditorDialog::check);
    connect(name_, &QLineEdit::textChanged, this, &SpecEditorDialog::check);
    connect(save_, &QPushButton::clicked, this, &SpecEditorDialog::save);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    showSpec(0);
}

void SpecEditorDialog::showSpec(int index) {
    const auto& specs = session_->specs();
    const bool existing = index >= 0 && index < static_cast<int>(specs.size());
    const accounting::ModelSpec spec = existing ? specs[static_cast<std::size_t>(index)].spec : newSpec();
    source_ = existing ? specs[static_cast<std::size_t>(index)].source : std::string();
    name_->setText(QString::fromStdString(existing ? specs[static_cast<std::size_t>(index)].name : spec.name));
    text_->setPlainText(QString::fromUtf8(data::specJsonBytes(spec)));
}

void SpecEditorDialog::check() {
    const std::string name = name_->text().trimmed().toStdString();
    auto spec = data::parseSpecJson(text_->toPlainText().toUtf8(), name.empty() ? "spec" : name);
    parsed_.reset();
    if (!spec) {
        const data::LoadError& e = spec.error();
        status_->setText(QString::fromStdString((e.column.empty() ? std::string() : e.column + ": ") + e.message));
    } else if (!data::validTableName(name)) {
        status_->setText(tr("name: letters, digits, '.', '_' and '-' only (it names the file specs/<name>.json)"));
    } else {
        parsed_ = std::move(*spec);
        const accounting::ParamCounts n = accounting::paramCounts(*parsed_);
        status_->setText(tr("valid: %1 parameters (%2 active), %3 layers")
                             .arg(n.total())
                             .arg(n.activeTotal())
                             .arg(static_cast<qlonglong>(parsed_->layers.size())));
    }
    save_->setEnabled(parsed_.has_value());
}

QString SpecEditorDialog::status() const { return status_->text(); }

bool SpecEditorDialog::save() {
    if (!parsed_) return false;
    const std::string name = name_->text().trimmed().toStdString();
    session_->setSpec({name, source_, *parsed_});
    // The list follows the project's specs; the saved one stays shown.
    const QSignalBlocker block(specs_);
    specs_->clear();
    int shown = 0;
    for (const auto& s : session_->specs()) {
        if (s.name == name) shown = specs_->count();
        specs_->addItem(QString::fromStdString(s.name));
    }
    specs_->addItem(tr("New spec…"));
    specs_->setCurrentIndex(shown);
    return true;
}

}  // namespace scalex::gui
