import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A task executor with one thread of its own, optionally at a lower scheduling priority.
///
/// A projection runner folds and encodes a batch in one synchronous stretch: tens of milliseconds
/// for a thousand events. On Swift's cooperative pool (one thread per core) a background runner's
/// batch then holds a whole core, and the journey runner, whose views riders wait for, and the
/// request handlers queue behind it until it ends. On a thread of its own the runner is one more
/// thread the kernel shares the cores between, preempting it when others are ready; with a
/// positive `nice` it yields to them more (`setpriority`, per thread on Linux).
package final class ThreadExecutor: TaskExecutor, Sendable {
    private struct Queue {
        var jobs: [UnownedJob] = []
        var closed = false
    }

    private let queue = Mutex(Queue())
    private let wake = DispatchSemaphore(value: 0)
    let name: String

    /// Starts the thread `name` (the system keeps its first 15 bytes); a positive `nice` lowers its
    /// priority by that much (the nice value rises by it, up to 19).
    package init(name: String, nice: Int32 = 0) {
        self.name = name
        let thread = Thread { [self] in
            // Named from inside: Foundation does not name a thread's system thread before it starts.
            Thread.current.name = String(decoding: name.utf8.prefix(15), as: UTF8.self)
            #if os(Linux)
            // On Linux the nice value is per thread, and `who` 0 names the calling thread, which
            // starts at its creator's value.
            if nice > 0 {
                let which = __priority_which_t(PRIO_PROCESS.rawValue)
                _ = setpriority(which, 0, min(19, getpriority(which, 0) + nice))
            }
            #endif
            runJobs()
        }
        thread.start()
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let queued = queue.withLock { queue in
            guard !queue.closed else { return false }
            queue.jobs.append(job)
            return true
        }
        if queued {
            wake.signal()
        } else {
            // A task that still prefers this executor (a read cancelled while its query ran) resumes
            // on the global executor instead.
            globalConcurrentExecutor.enqueue(ExecutorJob(job))
        }
    }

    /// Lets the thread end once the jobs queued so far ran; later ones run on the global executor.
    package func close() {
        queue.withLock { $0.closed = true }
        wake.signal()
    }

    private func runJobs() {
        while true {
            wake.wait()
            let (jobs, closed) = queue.withLock { queue in
                defer { queue.jobs.removeAll(keepingCapacity: true) }
                return (queue.jobs, queue.closed)
            }
            for job in jobs { job.runSynchronously(on: asUnownedTaskExecutor()) }
            if closed { return }
        }
    }
}
