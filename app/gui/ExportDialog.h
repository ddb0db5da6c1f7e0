#pragma once
// File → Export view as figure: the format, the physical size (single column, double column,
// slides or any width x height), the resolution of PNGs, the paper or screen style and the
// font, the file, and whether to keep the figure as a recipe in the project.
#include <QDialog>

#include "app/gui/FigureExport.h"

class QComboBox;
class QDoubleSpinBox;
class QSpinBox;
class QFontComboBox;
class QLineEdit;
class QCheckBox;
class QLabel;
class QDialogButtonBox;

namespace scalex::gui {

class ExportDialog : public QDialog {
    Q_OBJECT
public:
    // `viewId` names the default file and recipe; `existingRecipes` are the project's names.
    ExportDialog(const QString& viewTitle, const QString& viewId, const QStringList& existingRecipes, QWidget* parent = nullptr);

    FigureStyle style() const;
    QString path() const;
    QString format() const;  // "pdf", "svg" or "png", from the file's suffix
    // The recipe name to keep, or empty when none is wanted.
    QString recipeName() const;

    // For tests and scripted use: the widgets by role.
    QComboBox* sizeBox() const { return size_; }
    QLineEdit* pathEdit() const { return path_; }
    QCheckBox* keepRecipeBox() const { return keep_; }
    QLineEdit* recipeEdit() const { return recipe_; }
    QFontComboBox* fontBox() const { return font_; }
    QComboBox* styleBox() const { return styleBox_; }
    QSpinBox* dpiBox() const { return dpi_; }

private:
    void browse();
    void sizeChosen(int index);
    void update();

    QComboBox* format_;
    QComboBox* size_;
    QDoubleSpinBox* width_;
    QDoubleSpinBox* height_;
    QSpinBox* dpi_;
    QComboBox* styleBox_;
    QFontComboBox* font_;
    QLineEdit* path_;
    QCheckBox* keep_;
    QLineEdit* recipe_;
    QLabel* problem_;
    QDialogButtonBox* buttons_;
    QStringList existing_;
};

}  // namespace scalex::gui
