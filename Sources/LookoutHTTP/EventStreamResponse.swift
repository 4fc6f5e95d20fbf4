import Hummingbird
import NIOCore

extension EventStream {
    /// The events as Server-Sent Events to a new client on `channel`; 503 when the clients are
    /// already as many as allowed.
    func streamResponse(channel: any Channel) -> Response {
        guard let (id, lines) = subscribe(channel: channel) else {
            return Response.plainText(.serviceUnavailable, "\(EventStream.maximumClients) event clients already connected")
        }
        return Response(status: .ok, headers: .uncached(type: "text/event-stream"), body: ResponseBody { [self] writer in
            defer { unsubscribe(id) }
            try await writer.write(ByteBuffer(string: ": lookout events\n\n"))
            for await line in lines {
                try await writer.write(Self.serverSentEvent(line))
            }
            try await writer.finish(nil)
        })
    }

    /// One line as an SSE event: `data: <line>` and a blank line; a heartbeat (empty) as a comment.
    /// A text line holding CR or LF (a code's payload) continues on more `data:` lines, which a
    /// client joins back with LF.
    static func serverSentEvent(_ line: [UInt8]) -> ByteBuffer {
        var buffer = ByteBuffer()
        guard !line.isEmpty else {
            buffer.writeString(": heartbeat\n\n")
            return buffer
        }
        let body = line.last == 0x0A ? line.dropLast() : line[...]
        for segment in body.split(separator: 0x0A, omittingEmptySubsequences: false) {
            for piece in segment.split(separator: 0x0D, omittingEmptySubsequences: false) {
                buffer.writeString("data: ")
                buffer.writeBytes(piece)
                buffer.writeString("\n")
            }
        }
        buffer.writeString("\n")
        return buffer
    }
}
