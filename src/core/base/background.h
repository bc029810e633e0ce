#pragma once

#include <QFuture>
#include <QPromise>
#include <QThreadPool>

#include <functional>
#include <memory>

namespace AgentLoop {

// Runs work on the global thread pool and returns its future at once: the one way the core and
// the app take file work off the event loop's thread. Work that takes long checks
// promise.isCanceled() and returns early; a cancelled future holds no result.
template<typename T>
QFuture<T> runInBackground(std::function<T(const QPromise<T> &promise)> work)
{
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

} // namespace AgentLoop
