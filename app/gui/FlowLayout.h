#pragma once
// A layout that places its items left to right and starts a new line when the next one does not
// fit, so that a row of controls wraps on a narrow window instead of widening the view. Its
// height follows its width (heightForWidth).
#include <QLayout>
#include <QList>

namespace scalex::gui {

class FlowLayout : public QLayout {
public:
    explicit FlowLayout(QWidget* parent = nullptr, int spacing = -1);
    ~FlowLayout() override;

    // A label and its control as one item, so that they never land on different lines.
    void addLabelled(const QString& label, QWidget* control);

    void addItem(QLayoutItem* item) override;
    int count() const override { return static_cast<int>(items_.size()); }
    QLayoutItem* itemAt(int index) const override { return items_.value(index); }
    QLayoutItem* takeAt(int index) override;
    Qt::Orientations expandingDirections() const override { return {}; }
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override { return arrange(QRect(0, 0, width, 0), false); }
    QSize minimumSize() const override;
    QSize sizeHint() const override;
    void setGeometry(const QRect& rect) override;

private:
    int arrange(const QRect& rect, bool apply) const;
    int gap() const;
    QList<QLayoutItem*> items_;
};

}  // namespace scalex::gui
