#pragma once
// The recent-projects list and the last session, kept in QSettings (the caller passes the
// QSettings, so tests and the GUI choose where they live).
#include <QSettings>
#include <QString>
#include <QStringList>
#include <optional>

namespace scalex::data {

inline constexpr int kMaxRecentProjects = 10;

// Most recent first; paths that no longer exist are kept (the GUI greys them out).
QStringList recentProjects(const QSettings& settings);
// Moves `path` (made absolute) to the front; drops the oldest beyond kMaxRecentProjects.
void addRecentProject(QSettings& settings, const QString& path);
void removeRecentProject(QSettings& settings, const QString& path);
void clearRecentProjects(QSettings& settings);

// What the program reopens on start: the project file (empty for the built-in example), the
// view that was showing and the window geometry/state as the GUI saved them.
struct LastSession {
    QString projectPath;
    QString activeView;
    QByteArray windowGeometry;
    QByteArray windowState;
    friend bool operator==(const LastSession&, const LastSession&) = default;
};
void saveLastSession(QSettings& settings, const LastSession& session);
std::optional<LastSession> lastSession(const QSettings& settings);

}  // namespace scalex::data
