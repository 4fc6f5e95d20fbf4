import Foundation

/// Writes JPEG frames into a FIFO from a thread of its own, when asked, keeping it open between.
final class FIFOWriter: @unchecked Sendable {
    private let queue = DispatchQueue(label: "fifo.writer")
    private var descriptor: Int32 = -1

    init(path: String, frame: Data) {
        self.frame = frame
        // Opening a FIFO for writing waits for its reader.
        queue.async { [self] in descriptor = open(path, O_WRONLY | O_CLOEXEC) }
    }

    private let frame: Data

    func send(frames: Int) {
        queue.async { [self] in
            guard descriptor >= 0 else { return }
            for _ in 0..<frames {
                let ok = frame.withUnsafeBytes { bytes in
                    var offset = 0
                    while offset < bytes.count {
                        let n = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                        if n <= 0 { return false }
                        offset += n
                    }
                    return true
                }
                if !ok { return }
            }
        }
    }

    func close() {
        queue.async { [self] in if descriptor >= 0 { Glibc.close(descriptor) } }
    }
}
