#pragma once
// The thread pool of the views' long work (fits, bootstraps, table exports). Not Qt's global
// pool: Qt's raster painting splits work over the global pool and waits for it on the UI thread,
// so a fit holding the global pool's threads would hold up every repaint until it ends.
#include <QThread>
#include <QThreadPool>
#include <algorithm>

namespace scalex::gui {

inline QThreadPool* jobPool() {
    // Never destroyed: views wait for their own jobs when they go, and the pool outlives them all.
    static QThreadPool* pool = [] {
        auto* p = new QThreadPool;
        // As many jobs at once as cores (at least two: a table export waits for the fit it
        // needs), each spreading its fits over every core: more would starve the UI thread.
        p->setMaxThreadCount(std::max(2, QThread::idealThreadCount()));
        return p;
    }();
    return pool;
}

}  // namespace scalex::gui
