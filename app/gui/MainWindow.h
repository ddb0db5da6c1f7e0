#pragma once
#include <QMainWindow>
#include <vector>

class QLabel;
class QTabWidget;
class QTextBrowser;
class QDockWidget;

namespace scalex::gui {

class ViewPanel;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    QTabWidget* views() const { return views_; }
    const std::vector<ViewPanel*>& panels() const { return panels_; }
    // Shows the view with this id (e.g. "breakdown"); false when there is none.
    bool showView(const QString& id);
    ViewPanel* currentPanel() const;
    QTextBrowser* explainPane() const { return explain_; }

    void setDarkTheme(bool dark);

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void addPanel(ViewPanel* panel);
    void buildMenus();
    void showAbout();
    void updateExplain();
    void restoreLayout();
    void saveLayout();

    QTabWidget* views_ = nullptr;
    QTextBrowser* explain_ = nullptr;
    QDockWidget* explainDock_ = nullptr;
    QLabel* statusProject_ = nullptr;
    std::vector<ViewPanel*> panels_;
};

}  // namespace scalex::gui
