#include "core/data/ProjectHistory.h"

#include <QFileInfo>

namespace scalex::data {

namespace {
const QString kRecent = QStringLiteral("projects/recent");
const QString kSessionSaved = QStringLiteral("session/saved");
const QString kSessionProject = QStringLiteral("session/project");
const QString kSessionView = QStringLiteral("session/view");
const QString kSessionGeometry = QStringLiteral("session/geometry");
const QString kSessionState = QStringLiteral("session/state");

QString absolute(const QString& path) { return path.startsWith(':') ? path : QFileInfo(path).absoluteFilePath(); }
}  // namespace

QStringList recentProjects(const QSettings& settings) { return settings.value(kRecent).toStringList(); }

void addRecentProject(QSettings& settings, const QString& path) {
    const QString p = absolute(path);
    QStringList list = recentProjects(settings);
    list.removeAll(p);
    list.prepend(p);
    while (list.size() > kMaxRecentProjects) list.removeLast();
    settings.setValue(kRecent, list);
}

void removeRecentProject(QSettings& settings, const QString& path) {
    QStringList list = recentProjects(settings);
    list.removeAll(absolute(path));
    settings.setValue(kRecent, list);
}

void clearRecentProjects(QSettings& settings) { settings.remove(kRecent); }

void saveLastSession(QSettings& settings, const LastSession& session) {
    settings.setValue(kSessionSaved, true);
    settings.setValue(kSessionProject, session.projectPath.isEmpty() ? QString() : absolute(session.projectPath));
    settings.setValue(kSessionView, session.activeView);
    settings.setValue(kSessionGeometry, session.windowGeometry);
    settings.setValue(kSessionState, session.windowState);
}

std::optional<LastSession> lastSession(const QSettings& settings) {
    if (!settings.value(kSessionSaved).toBool()) return std::nullopt;
    return LastSession{settings.value(kSessionProject).toString(), settings.value(kSessionView).toString(),
                       settings.value(kSessionGeometry).toByteArray(), settings.value(kSessionState).toByteArray()};
}

}  // namespace scalex::data
