#include "app/gui/ExportDialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QVBoxLayout>

#include "app/figures/FigureWriter.h"
#include "core/data/FigureRecipe.h"

namespace scalex::gui {

namespace {

struct SizePreset {
    const char* label;
    double width, height;  // inches; height 0: automatic
};
// The layouts papers and talks use: a column of a two-column paper, the full text width, a 16:9 slide.
const SizePreset kPresets[] = {{"Single column (3.25 in wide)", 3.25, 0},
                               {"Double column (6.75 in wide)", 6.75, 0},
                               {"Slides 16:9 (13.33 × 7.5 in)", 13.33, 7.5},
                               {"Custom", 0, 0}};
constexpr int kCustom = 3;
const char* const kFormats[] = {"pdf", "svg", "png"};

}  // namespace

ExportDialog::ExportDialog(const QString& viewTitle, const QString& viewId, const QStringList& existingRecipes, QWidget* parent)
    : QDialog(parent), existing_(existingRecipes) {
    setWindowTitle(tr("Export %1 as a figure").arg(viewTitle));
    QSettings settings;

    format_ = new QComboBox(this);
    format_->addItem(tr("PDF (vector, fonts embedded)"));
    format_->addItem(tr("SVG (vector, text kept as text)"));
    format_->addItem(tr("PNG (pixels at the chosen resolution)"));
    size_ = new QComboBox(this);
    for (const SizePreset& p : kPresets) size_->addItem(tr(p.label));
    width_ = new QDoubleSpinBox(this);
    width_->setRange(1, 40);
    width_->setDecimals(2);
    width_->setSuffix(tr(" in"));
    height_ = new QDoubleSpinBox(this);
    height_->setRange(0, 40);
    height_->setDecimals(2);
    height_->setSuffix(tr(" in"));
    height_->setSpecialValueText(tr("automatic"));
    dpi_ = new QSpinBox(this);
    dpi_->setRange(30, 2400);
    dpi_->setSuffix(tr(" dpi"));
    dpi_->setValue(settings.value("export/dpi", 300).toInt());
    styleBox_ = new QComboBox(this);
    styleBox_->addItem(tr("Paper: white, fonts matched to the size, thin lines"));
    styleBox_->addItem(tr("As on screen"));
    styleBox_->setCurrentIndex(settings.value("export/paper", true).toBool() ? 0 : 1);
    font_ = new QFontComboBox(this);
    font_->setCurrentFont(QFont(settings.value("export/font", QStringLiteral("DejaVu Sans")).toString()));
    path_ = new QLineEdit(this);
    const QString dir = settings.value("export/dir", QDir::homePath()).toString();
    path_->setText(QDir(dir).filePath(viewId + ".pdf"));
    auto* browse = new QPushButton(tr("Browse…"), this);
    keep_ = new QCheckBox(tr("Keep as a recipe in the project, named"), this);
    keep_->setToolTip(tr("The project remembers the view, its settings and runs, and this size and style, so the "
                         "figure can be drawn again identically (File → Figure recipes, or scalex render --recipe)."));
    recipe_ = new QLineEdit(viewId, this);
    problem_ = new QLabel(this);
    problem_->setWordWrap(true);
    buttons_ = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons_->button(QDialogButtonBox::Ok)->setText(tr("Export"));

    auto* sizeRow = new QHBoxLayout();
    sizeRow->addWidget(width_);
    sizeRow->addWidget(new QLabel(QStringLiteral("×"), this));
    sizeRow->addWidget(height_);
    auto* pathRow = new QHBoxLayout();
    pathRow->addWidget(path_, 1);
    pathRow->addWidget(browse);
    auto* recipeRow = new QHBoxLayout();
    recipeRow->addWidget(keep_);
    recipeRow->addWidget(recipe_, 1);
    auto* form = new QFormLayout();
    form->addRow(tr("Format"), format_);
    form->addRow(tr("Size"), size_);
    form->addRow(tr("Width × height"), sizeRow);
    form->addRow(tr("Resolution"), dpi_);
    form->addRow(tr("Style"), styleBox_);
    form->addRow(tr("Font"), font_);
    form->addRow(tr("File"), pathRow);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addLayout(recipeRow);
    layout->addWidget(problem_);
    layout->addWidget(buttons_);

    connect(size_, &QComboBox::currentIndexChanged, this, &ExportDialog::sizeChosen);
    connect(width_, &QDoubleSpinBox::valueChanged, this, [this] {
        if (size_->currentIndex() != kCustom && width_->value() != kPresets[size_->currentIndex()].width) size_->setCurrentIndex(kCustom);
    });
    connect(height_, &QDoubleSpinBox::valueChanged, this, [this] {
        if (size_->currentIndex() != kCustom && height_->value() != kPresets[size_->currentIndex()].height) size_->setCurrentIndex(kCustom);
    });
    connect(format_, &QComboBox::currentIndexChanged, this, [this](int i) {
        const QFileInfo info(path_->text());
        path_->setText(QDir(info.path()).filePath(info.completeBaseName() + '.' + QLatin1String(kFormats[i])));
        update();
    });
    connect(path_, &QLineEdit::textChanged, this, [this] {
        const QString suffix = QFileInfo(path_->text()).suffix().toLower();
        for (int i = 0; i < 3; ++i)
            if (suffix == QLatin1String(kFormats[i]) && format_->currentIndex() != i) {
                QSignalBlocker block(format_);
                format_->setCurrentIndex(i);
            }
        update();
    });
    connect(styleBox_, &QComboBox::currentIndexChanged, this, &ExportDialog::update);
    connect(keep_, &QCheckBox::toggled, this, &ExportDialog::update);
    connect(recipe_, &QLineEdit::textChanged, this, &ExportDialog::update);
    connect(browse, &QPushButton::clicked, this, &ExportDialog::browse);
    connect(buttons_, &QDialogButtonBox::accepted, this, [this] {
        QSettings s;
        s.setValue("export/size", size_->currentIndex());
        s.setValue("export/width", width_->value());
        s.setValue("export/height", height_->value());
        s.setValue("export/dpi", dpi_->value());
        s.setValue("export/paper", styleBox_->currentIndex() == 0);
        s.setValue("export/font", font_->currentFont().family());
        s.setValue("export/dir", QFileInfo(path_->text()).absolutePath());
        accept();
    });
    connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);

    const int preset = settings.value("export/size", 1).toInt();
    size_->setCurrentIndex(preset >= 0 && preset <= kCustom ? preset : 1);
    sizeChosen(size_->currentIndex());
    if (size_->currentIndex() == kCustom) {
        width_->setValue(settings.value("export/width", 6.75).toDouble());
        height_->setValue(settings.value("export/height", 0).toDouble());
    }
    update();
}

void ExportDialog::sizeChosen(int index) {
    if (index == kCustom) return;
    QSignalBlocker a(width_), b(height_);
    width_->setValue(kPresets[index].width);
    height_->setValue(kPresets[index].height);
}

void ExportDialog::browse() {
    const QString path = QFileDialog::getSaveFileName(this, windowTitle(), path_->text(), tr("PDF (*.pdf);;SVG (*.svg);;PNG (*.png)"));
    if (!path.isEmpty()) path_->setText(path);
}

void ExportDialog::update() {
    const bool png = format_->currentIndex() == 2;
    dpi_->setEnabled(png);
    font_->setEnabled(styleBox_->currentIndex() == 0);
    recipe_->setEnabled(keep_->isChecked());
    QString problem;
    const QString suffix = QFileInfo(path_->text()).suffix().toLower();
    if (path_->text().trimmed().isEmpty()) problem = tr("Choose a file.");
    else if (!figures::figureSuffixes().contains(suffix)) problem = tr("The file must end in .pdf, .svg or .png.");
    else if (keep_->isChecked() && !data::validRecipeName(recipe_->text().toStdString()))
        problem = tr("A recipe name is 1 to 100 letters, digits, '.', '_' or '-'.");
    QString note;
    if (problem.isEmpty() && keep_->isChecked() && existing_.contains(recipe_->text()))
        note = tr("This replaces the recipe “%1” of the project.").arg(recipe_->text());
    problem_->setText(problem.isEmpty() ? note : QStringLiteral("<span style='color:#c0392b'>%1</span>").arg(problem));
    buttons_->button(QDialogButtonBox::Ok)->setEnabled(problem.isEmpty());
}

FigureStyle ExportDialog::style() const {
    FigureStyle s;
    s.widthInches = width_->value();
    s.heightInches = height_->value();
    s.dpi = dpi_->value();
    s.paper = styleBox_->currentIndex() == 0;
    s.fontFamily = font_->currentFont().family();
    return s;
}

QString ExportDialog::path() const { return path_->text().trimmed(); }

QString ExportDialog::format() const { return QFileInfo(path()).suffix().toLower(); }

QString ExportDialog::recipeName() const { return keep_->isChecked() ? recipe_->text() : QString(); }

}  // namespace scalex::gui
