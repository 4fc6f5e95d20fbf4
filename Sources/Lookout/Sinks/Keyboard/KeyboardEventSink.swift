import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Types each `code` event on a virtual keyboard, as a barcode scanner in keyboard-wedge mode
/// does: kiosk, point-of-sale and warehouse software reads it like a scanner, unchanged. One
/// keyboard per camera, made when the sink is made and removed when it finishes, never per code.
///
/// The pipeline's queue only decides what to type (the same symbol timeout, the layout); the
/// keys go out on the sink's own queue, paced by `Settings.keyDelay`, so detection never waits on
/// typing. Codes wait in a bounded queue (oldest dropped, counted). A code holding a character
/// the layout cannot type, with no substitute for it, is refused whole with a warning (counted):
/// nothing of it is typed.
public final class KeyboardEventSink: EventSink, Sendable {
    public let settings: Settings
    public let camera: String
    private let device: any KeyboardDevice
    private let diagnostics: @Sendable (String) -> Void
    /// Waits between key events; tests pass one that only records.
    private let pause: @Sendable (Double) -> Void
    private let typist: DispatchQueue
    /// Entered while the typist has codes to type (`finish()` waits on it).
    private let typing = DispatchGroup()
    /// Key events sent so far: `finish()` waits on while it grows.
    private let sent = Atomic<Int>(0)
    /// When the device was made (MonotonicClock nanoseconds): the first key waits `attachDelay`.
    private let madeAt: Int64
    private let clock: @Sendable () -> Int64

    private struct State {
        var waiting: BoundedQueue<[KeyEvent]>
        var timeout: SameSymbolTimeout
        var counts = Counts()
        var isTyping = false
        var finished = false
        /// The stop's time ran out while typing: the typist removes the device when done.
        var abandoned = false
        var failureSaid = false
    }
    private let state: Locked<State>

    public init(device: any KeyboardDevice, settings: Settings, camera: String,
                clock: @escaping @Sendable () -> Int64 = { MonotonicClock.nanoseconds() },
                pause: @escaping @Sendable (Double) -> Void = KeyboardEventSink.sleep,
                diagnostics: @escaping @Sendable (String) -> Void) {
        self.device = device
        self.settings = settings
        self.camera = camera
        self.clock = clock
        self.pause = pause
        self.diagnostics = diagnostics
        madeAt = clock()
        typist = DispatchQueue(label: "lookout.keyboard.\(camera)")
        state = Locked(State(waiting: BoundedQueue(capacity: max(1, settings.queueCapacity)),
                             timeout: SameSymbolTimeout(timeout: MediaTime(seconds: settings.sameSymbolTimeout))))
    }

    /// The sink on a new virtual keyboard named "Lookout scanner CAMERA" on `path`, able to press
    /// every key the layout types with.
    public static func open(camera: String, settings: Settings, path: String = UInputDevice.defaultPath,
                            diagnostics: @escaping @Sendable (String) -> Void) throws(UInputError) -> KeyboardEventSink {
        let device = try UInputDevice(path: path, name: Settings.deviceName(camera: camera), keys: settings.typing.layout.keyCodes)
        return KeyboardEventSink(device: device, settings: settings, camera: camera, diagnostics: diagnostics)
    }

    public var counts: Counts { state.withLock { $0.counts } }

    public func consume(_ output: PipelineOutput) {
        var refusals: [UntypableCharacter] = []
        let starts = state.withLock { state -> Bool in
            guard !state.finished else { return false }
            for emitted in output.events {
                guard case .code(let code) = emitted.event else { continue }
                guard state.timeout.admits(code.payload, at: code.time) else {
                    state.counts.deduplicated += 1
                    continue
                }
                switch settings.typing.keyEvents(value: code.stringValue, symbologyIdentifier: code.symbologyIdentifier) {
                case .success(let events):
                    if state.waiting.append(events) { state.counts.dropped += 1 }
                case .failure(let refusal):
                    state.counts.refused += 1
                    refusals.append(refusal)
                }
            }
            if let frame = output.frame {
                let codes = output.objects.compactMap { ($0 as? MachineReadableCodeObject)?.payload }
                state.timeout.saw(codes, at: frame.presentationTime)
            }
            guard !state.waiting.isEmpty, !state.isTyping else { return false }
            state.isTyping = true
            return true
        }
        for refusal in refusals {
            diagnostics("keyboard \(camera): a code was not typed: it holds \(refusal.words) (refused whole; keyboard-gs and keyboard-substitute set what to type instead)")
        }
        if starts {
            typing.enter()
            typist.async { self.typeWaiting() }
        }
    }

    /// Types the waiting codes, one after the other, until none is left.
    private func typeWaiting() {
        defer { typing.leave() }
        while let events = state.withLock({ state -> [KeyEvent]? in
            if let next = state.waiting.popFirst() { return next }
            state.isTyping = false
            return nil
        }) {
            let early = Double(madeAt + Int64(settings.attachDelay * 1e9) - clock()) / 1e9
            if early > 0 { pause(early) }
            type(events)
        }
        if state.withLock({ $0.abandoned }) { device.destroy() }
    }

    private func type(_ events: [KeyEvent]) {
        var sent = 0
        do throws(UInputError) {
            for event in events {
                if sent > 0, settings.keyDelay > 0 { pause(settings.keyDelay) }
                try device.send(event)
                sent += 1
                self.sent.add(1, ordering: .relaxed)
            }
            state.withLock {
                $0.counts.typed += 1
                $0.counts.keys += sent
            }
        } catch {
            // Once: a device that failed fails every code after.
            let first = state.withLock { state -> Bool in
                state.counts.failed += 1
                state.counts.keys += sent
                defer { state.failureSaid = true }
                return !state.failureSaid
            }
            if first { diagnostics("keyboard \(camera): \(error)") }
        }
    }

    /// Types what is waiting, then removes the keyboard. An input that ends is typed to its end
    /// for as long as keys keep going out (`Settings.stallTimeout` without one is a keyboard that
    /// hangs); a stop
    /// signal's deadline (`StopDeadline`) cuts that short. A code being typed when the time runs
    /// out is typed to its end (never half) and the keyboard removed after it; codes not begun
    /// are dropped (counted).
    public func finish() {
        state.withLock { $0.finished = true }
        var seen = sent.load(ordering: .relaxed)
        while true {
            if typing.wait(timeout: .now() + StopDeadline.shared.remaining(atMost: settings.stallTimeout)) == .success {
                device.destroy()
                return
            }
            let now = sent.load(ordering: .relaxed)
            if StopDeadline.shared.hasBegun || now == seen { break }
            seen = now
        }
        let stillTyping = state.withLock { state -> Bool in
            state.counts.dropped += state.waiting.count
            while state.waiting.popFirst() != nil {}
            state.abandoned = state.isTyping
            return state.isTyping
        }
        if !stillTyping { device.destroy() }
    }

    /// Waits `seconds` on the typist's thread (nanosleep, resumed after signals).
    public static func sleep(_ seconds: Double) {
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - Double(Int(seconds))) * 1e9))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0, errno == EINTR { request = remaining }
    }

    /// `keyboard`: codes typed, keys sent, deduplicated, refused, dropped, failed.
    public func statisticsSection(camera: String?) -> StatisticsSection? {
        let counts = self.counts
        let fields = [StatisticsField("typed", .integer(counts.typed)), StatisticsField("keys", .integer(counts.keys)),
                      StatisticsField("deduplicated", .integer(counts.deduplicated)), StatisticsField("refused", .integer(counts.refused)),
                      StatisticsField("dropped", .integer(counts.dropped)), StatisticsField("failed", .integer(counts.failed))]
        let metrics = [("typed", counts.typed), ("deduplicated", counts.deduplicated), ("refused", counts.refused),
                       ("dropped", counts.dropped), ("failed", counts.failed)].map { result, count in
            StatisticsMetric("lookout_keyboard_codes_total", help: "Codes the keyboard output typed, held back, refused, dropped or failed.",
                             labels: [(name: "result", value: result)], .counter(count))
        }
        var summary = "keyboard: \(counts.typed) typed"
        for (count, words) in [(counts.deduplicated, "deduplicated"), (counts.refused, "refused"), (counts.dropped, "dropped"), (counts.failed, "failed")]
        where count > 0 { summary += ", \(count) \(words)" }
        return StatisticsSection(name: "keyboard", fields: fields, summary: summary, metrics: metrics)
    }
}
