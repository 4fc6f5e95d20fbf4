import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// A fixed number of detector threads shared by metadata outputs (cameras), instead of two
/// threads of their own each: 64 cameras then make 64 x 2 queues of work for a few threads, not
/// 128 threads fighting blindly for the cores.
///
/// Each output's work comes in lanes (`Lane`): serial queues whose jobs run one at a time and in
/// order, on whichever pool thread is free. The pool takes ready lanes by priority (codes first,
/// then faces of cameras tracking one, then the rest, which get one turn in three among faces so
/// that a camera that lost its face is still looked at), and within a priority in the order they
/// became ready; a lane with more jobs goes to the back of its priority once one has run, so a
/// busy camera cannot starve another. Face jobs (tens of milliseconds for a full search) run on
/// at most `faceThreadCount` threads at once, one fewer than all by default: a code job, due
/// within a frame or its camera drops the next frame as late, always finds a thread soon.
public final class DetectorPool: Sendable {
    /// What a lane's jobs are, in the order the pool takes them.
    enum Priority: Int, CaseIterable, Sendable {
        /// Code reading: a code must be read within 100 ms, and a late code job drops frames.
        case codes
        /// Faces of a camera with a face in view: its track must not be lost.
        case trackedFaces
        /// Faces of a quiet camera (one turn in three when tracked ones wait too).
        case faces
    }

    /// The pool every metadata output uses unless given its own.
    public static let shared = DetectorPool()

    /// The processors online, at least 1: the default number of threads.
    public static var onlineProcessorCount: Int { max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

    /// Threads running jobs.
    public let threadCount: Int
    /// Threads that may run face jobs at once.
    public let faceThreadCount: Int

    private let scheduler: Scheduler

    /// Starts `threads` threads (at least 1), which end when the pool is released and its queued
    /// jobs have run; face jobs run on `faceThreads` of them at once at most (by default all but
    /// one, at least 1).
    public init(threads: Int = DetectorPool.onlineProcessorCount, faceThreads: Int? = nil) {
        threadCount = max(1, threads)
        faceThreadCount = min(threadCount, max(1, faceThreads ?? threadCount - 1))
        scheduler = Scheduler(faceThreads: faceThreadCount)
        for index in 0..<threadCount {
            // A serial queue each takes a thread of its own for as long as its loop runs.
            DispatchQueue(label: "lookout.detector-pool.\(index)", qos: .userInitiated).async { [scheduler] in
                scheduler.work()
            }
        }
    }

    deinit { scheduler.close(threads: threadCount) }

    /// A new serial queue of jobs run on this pool.
    func lane(_ priority: Priority) -> Lane { Lane(scheduler: scheduler, priority: priority) }

    /// Jobs run so far, by the priority their lane had when it was taken (for tests and statistics).
    var jobsRun: [Priority: Int] { scheduler.state.withLock { $0.jobsRun } }

    /// A serial queue of jobs on a pool: one runs at a time, in the order given.
    final class Lane: Sendable {
        fileprivate let scheduler: Scheduler
        fileprivate struct Queue {
            var jobs: [@Sendable () -> Void] = []
            var queuedOrRunning = false
            var priority: Priority
        }
        /// Its jobs and place: the scheduler takes this lock inside its own, never the other way.
        fileprivate let queue: Locked<Queue>

        fileprivate init(scheduler: Scheduler, priority: Priority) {
            self.scheduler = scheduler
            queue = Locked(Queue(priority: priority))
        }

        /// The priority the lane takes the next time it becomes ready (a face lane moves between
        /// `trackedFaces` and `faces`); a lane already waiting keeps its place.
        var priority: Priority {
            get { queue.withLock { $0.priority } }
            set { queue.withLock { $0.priority = newValue } }
        }

        /// Queues `job` after the lane's others.
        func async(_ job: @escaping @Sendable () -> Void) {
            scheduler.submit(job, to: self)
        }

        /// Runs `job` on the pool after the lane's queued jobs, and waits for it. Never call it
        /// from a job of the same pool: with every thread waiting, nothing would run it.
        func sync<Result>(execute job: () -> Result) -> Result {
            withoutActuallyEscaping(job) { job in
                // The pool's job holds the box, not `job`: the box lets go of it before this
                // returns, as withoutActuallyEscaping checks.
                let box = SyncJob(), done = DispatchSemaphore(value: 0)
                var result: Result?
                box.run.withLock { $0 = { result = job() } }
                async {
                    do { // the job is let go of before the waiter returns
                        let run = box.run.withLock { run in defer { run = nil }; return run }
                        run?()
                    }
                    done.signal()
                }
                done.wait()
                return result!
            }
        }
    }

    /// A `Lane.sync` job, let go of once run: set before the job is queued, taken by it.
    private final class SyncJob: Sendable {
        let run = Locked<(() -> Void)?>(nil)
    }

    /// The ready lanes and the threads' loop.
    fileprivate final class Scheduler: Sendable {
        struct State {
            /// Lanes with a job to run and none running, by priority, oldest first.
            var ready: [[Lane]] = Array(repeating: [], count: Priority.allCases.count)
            var jobsRun: [Priority: Int] = [:]
            var runningFaces = 0
            /// Face jobs of tracked lanes taken in a row while quiet ones waited.
            var trackedInARow = 0
            /// Signals taken by threads that found only face lanes ready with `faceThreads`
            /// running: given again as a face job ends.
            var deferred = 0
        }

        let state = Locked(State())
        private let faceThreads: Int

        /// Turns of cameras with a face in view for one of a quiet camera, when both wait.
        static let trackedTurnsPerQuiet = 2

        init(faceThreads: Int) {
            self.faceThreads = faceThreads
        }
        /// Signalled once per lane made ready (and once per thread at close): a thread that takes
        /// a signal finds a ready lane, or the pool closing.
        private let readyLanes = DispatchSemaphore(value: 0)

        func submit(_ job: @escaping @Sendable () -> Void, to lane: Lane) {
            let madeReady = state.withLock { state in
                lane.queue.withLock { queue in
                    queue.jobs.append(job)
                    guard !queue.queuedOrRunning else { return false }
                    queue.queuedOrRunning = true
                    state.ready[queue.priority.rawValue].append(lane)
                    return true
                }
            }
            if madeReady { readyLanes.signal() }
        }

        func close(threads: Int) {
            for _ in 0..<threads { readyLanes.signal() }
        }

        private enum Pick {
            case run(Lane, @Sendable () -> Void, isFace: Bool)
            case deferred
            case closing
        }

        /// A thread's loop: runs the first job of the first ready lane of the highest priority,
        /// then puts the lane back at the end of its priority if it has more.
        func work() {
            while true {
                readyLanes.wait()
                let pick: Pick = state.withLock { state in
                    let facesAllowed = state.runningFaces < faceThreads
                    guard var level = state.ready.indices.first(where: {
                        !state.ready[$0].isEmpty && ($0 == Priority.codes.rawValue || facesAllowed)
                    }) else {
                        guard state.ready.allSatisfy(\.isEmpty) else {
                            state.deferred += 1
                            return .deferred
                        }
                        // No lane for a signal: the pool is closing (ready lanes always come first).
                        return .closing
                    }
                    if level == Priority.trackedFaces.rawValue {
                        if !state.ready[Priority.faces.rawValue].isEmpty, state.trackedInARow >= Self.trackedTurnsPerQuiet {
                            level = Priority.faces.rawValue
                            state.trackedInARow = 0
                        } else {
                            state.trackedInARow += state.ready[Priority.faces.rawValue].isEmpty ? 0 : 1
                        }
                    } else if level == Priority.faces.rawValue {
                        state.trackedInARow = 0
                    }
                    let lane = state.ready[level].removeFirst()
                    state.jobsRun[Priority(rawValue: level)!, default: 0] += 1
                    let isFace = level != Priority.codes.rawValue
                    if isFace { state.runningFaces += 1 }
                    return .run(lane, lane.queue.withLock { $0.jobs.removeFirst() }, isFace: isFace)
                }
                guard case .run(let lane, let job, let isFace) = pick else {
                    if case .closing = pick { return }
                    continue
                }
                job()
                let signals = state.withLock { state in
                    var signals = 0
                    if isFace {
                        state.runningFaces -= 1
                        if state.deferred > 0 {
                            state.deferred -= 1
                            signals += 1
                        }
                    }
                    lane.queue.withLock { queue in
                        if queue.jobs.isEmpty {
                            queue.queuedOrRunning = false
                        } else {
                            state.ready[queue.priority.rawValue].append(lane)
                            signals += 1
                        }
                    }
                    return signals
                }
                for _ in 0..<signals { readyLanes.signal() }
            }
        }
    }
}
