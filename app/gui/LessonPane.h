#pragma once
// The side pane of a guided lesson (core/data/Lesson.h): the step's title, its explanation and
// question, Back / Next, and a frame around the control the step asks the reader to touch. The
// window (MainWindow::showLessonStep) sets the view and its controls; this pane only shows.
#include <QPointer>
#include <QWidget>
#include <vector>

#include "core/data/Lesson.h"

class QLabel;
class QPushButton;
class QTextBrowser;

namespace scalex::gui {

// A frame drawn over the window around one control; the mouse passes through it. A control in a
// scrolled view is scrolled into sight, again whenever the layout around it settles, until the
// reader scrolls that view.
class HighlightFrame : public QWidget {
    Q_OBJECT
public:
    explicit HighlightFrame(QWidget* window);
    // Follows `target` (null: hidden).
    void setTarget(QWidget* target);
    QWidget* target() const { return target_; }

protected:
    void paintEvent(QPaintEvent*) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void follow();
    // Scrolls every scroll area around the target to show it, once the posted layouts have run.
    void scheduleReveal();
    void reveal();
    QPointer<QWidget> target_;
    bool revealQueued_ = false;
    bool keepRevealing_ = false;  // false once the reader scrolls the view
    std::vector<QMetaObject::Connection> scrollConnections_;
    std::vector<QPointer<QWidget>> watched_;
};

class LessonPane : public QWidget {
    Q_OBJECT
public:
    explicit LessonPane(QWidget* parent = nullptr);

    void setLesson(const data::Lesson& lesson);
    const data::Lesson& lesson() const { return lesson_; }
    bool hasLesson() const { return !lesson_.steps.empty(); }
    int step() const { return step_; }
    // Shows step `index` (0-based) of the lesson: text and question, buttons.
    void showStep(int index);
    QTextBrowser* text() const { return text_; }

signals:
    void stepRequested(int index);  // Back / Next
    void closeRequested();

private:
    data::Lesson lesson_;
    int step_ = 0;
    QLabel* title_ = nullptr;
    QLabel* counter_ = nullptr;
    QTextBrowser* text_ = nullptr;
    QPushButton* back_ = nullptr;
    QPushButton* next_ = nullptr;
};

}  // namespace scalex::gui
