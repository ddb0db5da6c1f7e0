#pragma once
#include <QMainWindow>

class QLabel;
class QTabWidget;

namespace scalex::gui {

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);

    QTabWidget* views() const { return views_; }

private:
    void buildMenus();
    void showAbout();

    QTabWidget* views_ = nullptr;
    QLabel* statusProject_ = nullptr;
};

}  // namespace scalex::gui
