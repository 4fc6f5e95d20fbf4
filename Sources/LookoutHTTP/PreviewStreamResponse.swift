import Hummingbird
import NIOCore

extension PreviewBroadcaster {
    static let boundary = "lookout-frame"
    /// The MJPEG stream's type: parts replacing each other.
    static let streamType = "multipart/x-mixed-replace; boundary=\(boundary)"

    /// The preview as an MJPEG stream to a new viewer on `channel`, with or without the boxes;
    /// 503 when the viewers are already as many as allowed.
    func streamResponse(drawsBoxes: Bool, channel: any Channel) -> Response {
        guard let (id, pictures) = addViewer(drawsBoxes: drawsBoxes, channel: channel) else {
            return Response.plainText(.serviceUnavailable, "\(PreviewBroadcaster.maximumViewers) viewers already watch")
        }
        return Response(status: .ok, headers: .uncached(type: Self.streamType), body: ResponseBody { [self] writer in
            defer { removeViewer(id) }
            // Each part ends with the next boundary, so a browser shows a picture as soon as it is
            // whole, not when the next one starts.
            try await writer.write(ByteBuffer(string: "--\(Self.boundary)\r\n"))
            for await jpeg in pictures {
                var part = ByteBuffer()
                part.writeString("Content-Type: image/jpeg\r\nContent-Length: \(jpeg.count)\r\n\r\n")
                part.writeBytes(jpeg)
                part.writeString("\r\n--\(Self.boundary)\r\n")
                try await writer.write(part)
                viewerTook(id)
            }
            try await writer.finish(nil)
        })
    }
}
