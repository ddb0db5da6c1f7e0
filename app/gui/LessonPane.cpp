#include "app/gui/LessonPane.h"

#include <QEvent>
#include <algorithm>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "app/figures/Theme.h"
#include "app/gui/FigureNames.h"

namespace scalex::gui {

HighlightFrame::HighlightFrame(QWidget* window) : QWidget(window) {
    setObjectName(QStringLiteral("LessonHighlight"));
    setAttribute(Qt::WA_TransparentForMouseEvents);
    setAttribute(Qt::WA_NoSystemBackground);
    window->installEventFilter(this);
    hide();
}

void HighlightFrame::setTarget(QWidget* target) {
    for (const QPointer<QWidget>& w : watched_)
        if (w) w->removeEventFilter(this);
    watched_.clear();
    for (const auto& c : scrollConnections_) disconnect(c);
    scrollConnections_.clear();
    target_ = target;
    keepRevealing_ = target_ != nullptr;
    if (target_) {
        // The control and every widget around it up to the window: any of them moving or resizing
        // (a dock opening, a view scrolling, a layout settling) moves the control on screen.
        for (QWidget* w = target_; w && w != parentWidget(); w = w->parentWidget()) {
            w->installEventFilter(this);
            watched_.push_back(w);
        }
        // Follow the control when its view scrolls; a scroll by the reader (wheel, keys, the bar)
        // is a triggered action, and from then on the reader decides what is in sight.
        for (QWidget* w = target_->parentWidget(); w && w != parentWidget(); w = w->parentWidget())
            if (auto* scroll = qobject_cast<QScrollArea*>(w))
                for (QScrollBar* bar : {scroll->horizontalScrollBar(), scroll->verticalScrollBar()}) {
                    scrollConnections_.push_back(connect(bar, &QScrollBar::valueChanged, this, &HighlightFrame::follow));
                    scrollConnections_.push_back(connect(bar, &QScrollBar::actionTriggered, this, [this] { keepRevealing_ = false; }));
                }
    }
    reveal();
    // A step shown before its view is laid out (a new tab, a hidden window) has the control's
    // final place only after the posted layout requests have run.
    scheduleReveal();
}

void HighlightFrame::scheduleReveal() {
    if (revealQueued_ || !keepRevealing_) return;
    revealQueued_ = true;
    QMetaObject::invokeMethod(this, &HighlightFrame::reveal, Qt::QueuedConnection);
}

void HighlightFrame::reveal() {
    revealQueued_ = false;
    // A hidden control has no place yet: scrolling to it would only leave the view off its top.
    if (target_ && keepRevealing_ && target_->isVisible())
        for (QWidget* w = target_->parentWidget(); w && w != parentWidget(); w = w->parentWidget())
            if (auto* scroll = qobject_cast<QScrollArea*>(w)) scroll->ensureWidgetVisible(target_, 16, 16);
    follow();
}

void HighlightFrame::follow() {
    QWidget* window = parentWidget();
    if (!target_ || !window || !target_->isVisibleTo(window)) {
        hide();
        return;
    }
    // Only the part of the control that is in sight (a scrolled view may hide some of it).
    const QRect visible = target_->visibleRegion().boundingRect();
    if (visible.isEmpty() && target_->isVisible()) {
        hide();
        return;
    }
    constexpr int kMargin = 4;
    const QRect local = visible.isEmpty() ? target_->rect() : visible;
    const QPoint topLeft = target_->mapTo(window, local.topLeft());
    setGeometry(QRect(topLeft, local.size()).adjusted(-kMargin, -kMargin, kMargin, kMargin));
    show();
    raise();
}

bool HighlightFrame::eventFilter(QObject* watched, QEvent* event) {
    switch (event->type()) {
    case QEvent::Move:
    case QEvent::Resize:
    case QEvent::Show:
    case QEvent::Hide:
    case QEvent::LayoutRequest:
        follow();
        scheduleReveal();
        break;
    default:
        break;
    }
    return QWidget::eventFilter(watched, event);
}

void HighlightFrame::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    QPen pen(Theme::current().highlight, 3);
    p.setPen(pen);
    p.drawRoundedRect(QRectF(rect()).adjusted(1.5, 1.5, -1.5, -1.5), 5, 5);
}

LessonPane::LessonPane(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("LessonPane"));
    auto* layout = new QVBoxLayout(this);
    title_ = new QLabel(this);
    title_->setWordWrap(true);
    QFont f = title_->font();
    f.setBold(true);
    f.setPointSizeF(f.pointSizeF() * 1.15);
    title_->setFont(f);
    counter_ = new QLabel(this);
    counter_->setWordWrap(true);
    text_ = new QTextBrowser(this);
    text_->setObjectName(QStringLiteral("LessonText"));
    text_->setOpenExternalLinks(false);
    back_ = new QPushButton(tr("← Back"), this);
    next_ = new QPushButton(tr("Next →"), this);
    auto* close = new QPushButton(tr("End lesson"), this);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(back_);
    buttons->addWidget(next_);
    buttons->addStretch(1);
    buttons->addWidget(close);
    layout->addWidget(title_);
    layout->addWidget(counter_);
    layout->addWidget(text_, 1);
    layout->addLayout(buttons);
    connect(back_, &QPushButton::clicked, this, [this] { emit stepRequested(step_ - 1); });
    connect(next_, &QPushButton::clicked, this, [this] { emit stepRequested(step_ + 1); });
    connect(close, &QPushButton::clicked, this, &LessonPane::closeRequested);
}

void LessonPane::setLesson(const data::Lesson& lesson) {
    lesson_ = lesson;
    step_ = 0;
}

void LessonPane::showStep(int index) {
    if (lesson_.steps.empty()) return;
    step_ = std::clamp(index, 0, static_cast<int>(lesson_.steps.size()) - 1);
    const data::LessonStep& s = lesson_.steps[static_cast<std::size_t>(step_)];
    title_->setText(QString::fromStdString(lesson_.title));
    counter_->setText(tr("Step %1 of %2: %3").arg(step_ + 1).arg(lesson_.steps.size()).arg(QString::fromStdString(s.title)));
    QString html = QString::fromStdString(s.text);
    if (!s.question.empty())
        html += QStringLiteral("<p style=\"margin-top:12px\"><b>%1</b> %2</p>")
                    .arg(tr("Question:"), QString::fromStdString(s.question).toHtmlEscaped());
    if (!s.highlight.empty())
        html += QStringLiteral("<p style=\"color:%1\">%2</p>")
                    .arg(Theme::current().muted.name(), tr("The framed control is the one to try."));
    text_->setHtml(html);
    back_->setEnabled(step_ > 0);
    next_->setEnabled(step_ + 1 < static_cast<int>(lesson_.steps.size()));
}

}  // namespace scalex::gui
