import Dispatch

/// Runs the web server's tasks on a dispatch queue of their own rather than Swift's cooperative
/// pool, which has as many threads as the machine has cores: a process (or a test runner) whose
/// threads block in that pool must not leave the web view without a thread to answer on.
final class DispatchTaskExecutor: TaskExecutor, Sendable {
    private let queue = DispatchQueue(label: "lookout.http.tasks", qos: .utility, attributes: .concurrent)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { [self] in job.runSynchronously(on: asUnownedTaskExecutor()) }
    }
}
