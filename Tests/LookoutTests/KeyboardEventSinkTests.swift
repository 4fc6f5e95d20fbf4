import Dispatch
import Testing
@testable import Lookout

/// The keyboard output on a recording device: what it types for code events and in what order,
/// the same symbol timeout, refusals, the bounded queue, and the device's life (made once,
/// removed at the finish).
@Suite("Keyboard output")
struct KeyboardEventSinkTests {
    /// Records what would have gone to /dev/uinput.
    final class RecordingKeyboard: KeyboardDevice, @unchecked Sendable {
        let events = Locked<[KeyEvent]>([])
        let destroyed = Locked(0)
        func send(_ event: KeyEvent) throws(UInputError) {
            guard destroyed.withLock({ $0 }) == 0 else { throw .write(path: "recording", errno: Errno(rawValue: 19)) }
            events.withLock { $0.append(event) }
        }
        func destroy() { destroyed.withLock { $0 += 1 } }
    }

    /// A code read at `seconds` into the stream.
    static func code(_ text: String, at seconds: Double, aim: String = "]Q1") -> MachineReadableCodeObject {
        let pool = BufferPool(count: 1)
        let index = pool.acquire(capacity: 64, wait: false)!
        let image = PixelBuffer(width: 8, height: 8, bytesPerRow: 8, pool: pool, poolIndex: index)
        let frame = SampleBuffer(sequence: UInt64(seconds * 30), presentationTime: MediaTime(seconds: seconds), wallClockTime: .now(),
                                 formatDescription: VideoFormatDescription(width: 8, height: 8, pixelFormat: .gray), imageBuffer: image)
        return MachineReadableCodeObject(type: .qr, frame: frame, payload: Array(text.utf8),
                                         pixelCorners: [Point(x: 1, y: 1), Point(x: 1, y: 7), Point(x: 7, y: 7), Point(x: 7, y: 1)],
                                         symbologyIdentifier: aim)
    }

    /// One analysed frame at `seconds` holding `inView`, with a code event for each of `events`.
    static func frame(at seconds: Double, events: [String] = [], inView: [String] = []) -> PipelineOutput {
        let objects = Set(events + inView).sorted().map { code($0, at: seconds) }
        let emitted = events.map { text in EmittedEvent(event: .code(objects.first { $0.stringValue == text }!), line: []) }
        return PipelineOutput(events: emitted, frame: AnalysedFrame(objects.first ?? code("", at: seconds)), objects: objects)
    }

    static func sink(_ device: RecordingKeyboard, configure: (inout KeyboardEventSink.Settings) -> Void = { _ in },
                     pause: @escaping @Sendable (Double) -> Void = { _ in },
                     warnings: Locked<[String]> = Locked([])) -> KeyboardEventSink {
        var settings = KeyboardEventSink.Settings()
        settings.attachDelay = 0
        configure(&settings)
        return KeyboardEventSink(device: device, settings: settings, camera: "door", pause: pause,
                                 diagnostics: { line in warnings.withLock { $0.append(line) } })
    }

    /// The text the us layout's key events make, Enter as "\n".
    static func typed(_ events: [KeyEvent]) -> String {
        var byChord: [KeyChord: Character] = [:]
        for scalar in 0x20...0x7E {
            let character = Character(Unicode.Scalar(UInt8(scalar)))
            if let chord = KeyboardLayout.us.chord(for: character) { byChord[chord] = character }
        }
        var text = "", shift = false
        for event in events {
            if event.code == KeyCode.leftShift { shift = event.pressed; continue }
            guard event.pressed else { continue }
            text.append(event.code == KeyCode.enter ? "\n" : byChord[KeyChord(keyCode: event.code, shift: shift)] ?? "?")
        }
        return text
    }

    @Test func eachCodeEventIsTypedWholeInOrderWithItsSuffix() {
        let device = RecordingKeyboard()
        let sink = Self.sink(device)
        sink.consume(Self.frame(at: 0, events: ["Hello, World!"]))
        sink.consume(Self.frame(at: 1, events: ["A-1", "b_2"]))
        sink.finish()
        let events = device.events.withLock { $0 }
        #expect(Self.typed(events) == "Hello, World!\nA-1\nb_2\n")
        // Every press has its release, and no key is left down.
        #expect(events.filter(\.pressed).count == events.filter { !$0.pressed }.count)
        #expect(sink.counts == KeyboardEventSink.Counts(typed: 3, keys: events.count))
        #expect(device.destroyed.withLock { $0 } == 1)
        // After the finish nothing more is typed, and the device is not made again.
        sink.consume(Self.frame(at: 2, events: ["late"]))
        #expect(device.events.withLock { $0.count } == events.count)
    }

    @Test func theSameCodeIsNotTypedAgainUntilOutOfViewForTheTimeout() {
        let device = RecordingKeyboard()
        let sink = Self.sink(device) { $0.sameSymbolTimeout = 0.5 }
        sink.consume(Self.frame(at: 0.0, events: ["abc"]))
        // Events every frame (a dedupe of 0): held back while it stays in view.
        sink.consume(Self.frame(at: 0.1, events: ["abc"]))
        sink.consume(Self.frame(at: 0.2, inView: ["abc"]))
        sink.consume(Self.frame(at: 0.6, events: ["abc"])) // gone 0.4 s only
        sink.consume(Self.frame(at: 1.2, events: ["abc"])) // gone 0.6 s: typed again
        // Two symbologies' reads of one code in one frame are typed once.
        sink.consume(Self.frame(at: 3, events: ["xyz", "xyz"]))
        sink.finish()
        #expect(Self.typed(device.events.withLock { $0 }) == "abc\nabc\nxyz\n")
        #expect(sink.counts.deduplicated == 3)
        #expect(sink.counts.typed == 3)
    }

    @Test func aTimeoutOfZeroTypesEveryEvent() {
        let device = RecordingKeyboard()
        let sink = Self.sink(device) { $0.sameSymbolTimeout = 0 }
        for frame in 0..<3 { sink.consume(Self.frame(at: Double(frame) / 30, events: ["q"])) }
        sink.finish()
        #expect(Self.typed(device.events.withLock { $0 }) == "q\nq\nq\n")
    }

    @Test func aCodeTheLayoutCannotTypeIsRefusedWholeWithACountedWarning() {
        let device = RecordingKeyboard()
        let warnings = Locked<[String]>([])
        let sink = Self.sink(device, warnings: warnings)
        sink.consume(Self.frame(at: 0, events: ["price 5€", "ok1"]))
        sink.finish()
        #expect(Self.typed(device.events.withLock { $0 }) == "ok1\n")
        #expect(sink.counts.refused == 1 && sink.counts.typed == 1)
        #expect(warnings.withLock { $0 } == ["keyboard door: a code was not typed: it holds U+20AC '€' which the us layout cannot type (refused whole; keyboard-gs and keyboard-substitute set what to type instead)"])
        let section = sink.statisticsSection(camera: "door")
        #expect(section?.summary == "keyboard: 1 typed, 1 refused")
        #expect(section?["refused"] == .integer(1))
    }

    @Test func keysArePacedAndTheFirstWaitsForReadersToAttach() {
        let device = RecordingKeyboard()
        let pauses = Locked<[Double]>([])
        let now = Locked<Int64>(1_000_000_000)
        var settings = KeyboardEventSink.Settings()
        settings.keyDelay = 0.004
        settings.attachDelay = 0.5
        let sink = KeyboardEventSink(device: device, settings: settings, camera: "door", clock: { now.withLock { $0 } },
                                     pause: { seconds in pauses.withLock { $0.append(seconds) } }, diagnostics: { _ in })
        now.withLock { $0 += 200_000_000 } // the first code comes 0.2 s after the device was made
        sink.consume(Self.frame(at: 0, events: ["ab"]))
        sink.finish()
        // 0.3 s more to attach, then 4 ms between each of the 6 events (a, b, Enter).
        #expect(pauses.withLock { $0 } == [0.3] + Array(repeating: 0.004, count: 5))
    }

    @Test func aSlowConsumerDropsTheOldestWaitingCodesAndCountsThem() {
        let device = RecordingKeyboard()
        let gate = DispatchSemaphore(value: 0)
        let paused = DispatchSemaphore(value: 0)
        // The first pause holds the typist (after the first code's first key) until the gate opens.
        let first = Locked(true)
        let sink = Self.sink(device, configure: { $0.queueCapacity = 4 }, pause: { _ in
            if first.withLock({ value in defer { value = false }; return value }) {
                paused.signal()
                gate.wait()
            }
        })
        sink.consume(Self.frame(at: 0, events: ["c0"]))
        paused.wait()
        for index in 1...10 { sink.consume(Self.frame(at: Double(index), events: ["c\(index)"])) }
        gate.signal()
        sink.finish()
        #expect(Self.typed(device.events.withLock { $0 }) == "c0\nc7\nc8\nc9\nc10\n")
        #expect(sink.counts.dropped == 6 && sink.counts.typed == 5)
    }

    /// An input that ends: finish() waits while keys keep going out, and the counts then hold
    /// every code. The typist is held after the first key until finish() has begun, so all the
    /// rest is typed while finish() waits.
    @Test func anEndingInputIsTypedToItsEndWhileKeysKeepGoing() {
        let device = RecordingKeyboard()
        let long = String(repeating: "Lookout-", count: 20)
        let finishing = DispatchSemaphore(value: 0)
        let first = Locked(true)
        let sink = Self.sink(device, configure: { $0.stallTimeout = 1 }, pause: { _ in
            if first.withLock({ value in defer { value = false }; return value }) { finishing.wait() }
        })
        sink.consume(Self.frame(at: 0, events: [long]))
        sink.consume(Self.frame(at: 1, events: ["last"]))
        finishing.signal()
        sink.finish()
        #expect(sink.counts.typed == 2 && sink.counts.dropped == 0)
        #expect(Self.typed(device.events.withLock { $0 }) == long + "\nlast\n")
        #expect(device.destroyed.withLock { $0 } == 1)
    }

    @Test func aDeviceThatFailsIsSaidOnceAndCounted() {
        let device = RecordingKeyboard()
        device.destroy()
        let warnings = Locked<[String]>([])
        let sink = Self.sink(device, warnings: warnings)
        sink.consume(Self.frame(at: 0, events: ["one"]))
        sink.consume(Self.frame(at: 1, events: ["two"]))
        sink.finish()
        #expect(sink.counts.failed == 2)
        #expect(warnings.withLock { $0 }.count == 1)
    }
}
