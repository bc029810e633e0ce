#pragma once

#include <QCoreApplication>
#include <QFuture>
#include <QFutureWatcher>
#include <QPromise>
#include <QThreadPool>

#include <functional>
#include <memory>

namespace AgentLoop {

// Runs work on the global thread pool and returns its future at once: the one way the core and
// the app take file work off the event loop's thread (whenFinished() takes the result back). Work that takes long checks
// promise.isCanceled() and returns early; a cancelled future holds no result.
// Joins the pool's threads when the application object goes, while the process is still whole.
// Left to the pool's own static destructor, they are joined after Windows has ended them at
// exit, and under Wine that wait can last for ever: a test that had passed never exited.
inline void joinBackgroundThreadsAtExit()
{
    [[maybe_unused]] static const bool registered = [] {
        qAddPostRoutine([] { QThreadPool::globalInstance()->waitForDone(); });
        return true;
    }();
}

template<typename T>
QFuture<T> runInBackground(std::function<T(const QPromise<T> &promise)> work)
{
    joinBackgroundThreadsAtExit();
    auto promise = std::make_shared<QPromise<T>>();
    QFuture<T> future = promise->future();
    promise->start();
    QThreadPool::globalInstance()->start([promise, work = std::move(work)] {
        if (!promise->isCanceled())
            promise->addResult(work(*promise));
        promise->finish();
    });
    return future;
}

// Calls done(result) on context's thread once future has a result; not at all when context is
// gone by then or the future was cancelled. (QFuture::then(context, ...) of Qt 6.4 asserts when
// the context is gone first, as a window closed while its file work runs is.)
template<typename T, typename Done>
void whenFinished(const QFuture<T> &future, QObject *context, Done done)
{
    auto *watcher = new QFutureWatcher<T>(context);
    QObject::connect(watcher,
                     &QFutureWatcherBase::finished,
                     context,
                     [watcher, done = std::move(done)]() mutable {
                         watcher->deleteLater();
                         if (watcher->future().resultCount() > 0)
                             done(watcher->result());
                     });
    watcher->setFuture(future);
}

} // namespace AgentLoop
