#pragma once
// A guided lesson: a sequence of steps, each setting a view and its controls (by the names that
// recipes and `scalex render --set` use), pointing at one control, explaining in the side pane and
// asking a question the next step answers. Lessons are JSON files (resources/lessons/ ships some,
// README.md "Lessons" describes the format) so that a lecturer can write their own:
//
//   {"id": "isoflop-to-law", "title": "...", "summary": "...",
//    "steps": [{"title": "...", "view": "isoflop", "controls": {"family": "xLSTM"},
//               "highlight": "family", "text": "<p>...</p>", "question": "..."}]}
//
// The reader checks the file's shape here; whether the views and controls it names exist is
// checked by the window that shows it (app/gui/LessonPane.h).
#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <string>
#include <vector>

#include "core/data/LoadError.h"

namespace scalex::data {

struct LessonStep {
    std::string title;
    std::string view;       // a view id ("isoflop", "optimal", ...)
    QJsonObject controls;   // control name -> value, as recipes keep them; set in file order
    std::string highlight;  // the name of the control to touch; empty: none
    std::string text;       // the explanation (HTML)
    std::string question;   // asked at the end of the step; the next step answers it
};

struct Lesson {
    std::string id;
    std::string title;
    std::string summary;
    std::vector<LessonStep> steps;
    std::string file;  // where it was read from
};

// Reads a lesson from JSON text; `file` names it in errors. Errors name the file and the field
// ("steps[2].view: expected a string").
Expected<Lesson> parseLesson(const QByteArray& json, const std::string& file);
// Reads a lesson file (a path or a ":/" resource).
Expected<Lesson> loadLesson(const QString& path);

// The lessons the program ships (resources/lessons/, compiled in), in file-name order.
QStringList builtinLessonPaths();
// The shipped lesson with this id, else a lesson file at this path.
Expected<Lesson> findLesson(const QString& idOrPath);

}  // namespace scalex::data
