import Synchronization

/// The link between a session's input and one of its outputs (AVCaptureConnection). Sessions make
/// one for each output when it is added; disable it to stop frames reaching that output.
public final class CaptureConnection: Sendable {
    public let input: CaptureInput
    public unowned let output: CaptureOutput
    private let enabled = Atomic<Bool>(true)

    init(input: CaptureInput, output: CaptureOutput) {
        self.input = input
        self.output = output
    }

    public var isEnabled: Bool {
        get { enabled.load(ordering: .relaxed) }
        set { enabled.store(newValue, ordering: .relaxed) }
    }
}
