import Hummingbird
import Lookout
import NIOCore

/// Snapshots and clips served from their folders: only names Lookout makes, only regular files,
/// opened on the folder's descriptor without following a link (a link named like a snapshot is
/// 404, never its target).
enum StoredFileResponses {
    /// Clips listed by the web page, newest first: at most `listedRecordings`.
    static let listedRecordings = 50

    /// `camera`'s clips in `directory` as JSON, each with its URL (ending in `query`).
    static func recordingList(camera: String, in directory: Folder?, query: String) -> Response {
        var writer = JSONWriter(capacity: 4096)
        writer.beginObject()
        writer.key("camera"); writer.string(camera)
        writer.key("recordings")
        writer.beginArray()
        // Regular files named as clips, looked at without following a link.
        if let folder = try? directory?.open() {
            for clip in RecordingRetention.clips(in: folder).reversed().prefix(Self.listedRecordings) {
                writer.beginObject()
                writer.key("file"); writer.string(clip.name)
                writer.key("bytes"); writer.integer(Int(clip.bytes))
                writer.key("modified"); writer.string(WallClockTime(seconds: Int64(clip.modified), nanoseconds: 0).rfc3339)
                writer.key("url"); writer.string("/recordings/" + clip.name + query)
                writer.endObject()
            }
        }
        writer.endArray()
        writer.endObject()
        return Response.uncached(.ok, type: "application/json", writer.bytes + [0x0A])
    }

    /// A clip as a download, streamed from the file (clips are megabytes, not kilobytes).
    static func recording(named name: String, in directory: Folder?) -> Response {
        let notFound = Response.plainText(.notFound, "no such recording")
        // Only names the recorder makes (no slash, no dot-dot), and only a regular file in the
        // folder, opened on its descriptor without following a link.
        guard let directory, RecordingFileName.isRecording(name),
              let file = try? directory.open().openRegularFile(named: name),
              let size = try? file.status().size else { return notFound }
        var headers = HTTPFields.uncached(type: "video/x-matroska")
        headers[.contentDisposition] = "attachment; filename=\"\(name)\""
        headers[.contentLength] = String(size)
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            // The size announced, even of a clip still being written; the file closes with `file`.
            var remaining = Int(size)
            while remaining > 0 {
                let chunk = try file.read(upTo: min(remaining, 256 * 1024))
                if chunk.isEmpty { break }
                remaining -= chunk.count
                try await writer.write(ByteBuffer(bytes: chunk))
            }
            try await writer.finish(nil)
        })
    }

    /// A snapshot, read whole (kilobytes).
    static func snapshot(named name: String, in directory: Folder?) -> Response {
        let notFound = Response.plainText(.notFound, "no such snapshot")
        // Only names the writer makes (no slash, no dot-dot), and only a regular file in the
        // folder, opened on its descriptor without following a link: a link named like a
        // snapshot is 404, never its target.
        guard let directory, SnapshotFileName.isServable(name),
              let file = try? directory.open().openRegularFile(named: name),
              let size = try? file.status().size, let jpeg = try? file.read(upTo: Int(size)) else { return notFound }
        return Response.uncached(.ok, type: "image/jpeg", jpeg)
    }
}
