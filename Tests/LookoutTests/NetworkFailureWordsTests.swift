import Foundation
@testable import Lookout
import Testing

/// A network camera's failure is said in Lookout's words (`camera_lost`'s reason, the exit
/// message), not in ffmpeg's line, which names the URL with its password and ffmpeg's advice.
@Suite("Network failures in Lookout's words")
struct NetworkFailureWordsTests {
    @Test(arguments: [
        ("[tcp @ 0x55d] Connection to tcp://10.0.0.5:554?timeout=0 failed: Connection refused", "the camera refused the connection"),
        ("rtsp://u:pw@cam/live: Connection timed out", "the camera did not answer (connection timed out)"),
        ("[tcp @ 0x1] Failed to resolve hostname cam.invalid: Name or service not known", "the camera's host name does not resolve"),
        ("[http @ 0x2] HTTP error 401 Unauthorized", "the camera refused the user name or password (401)"),
        ("http://cam/x.mjpg: Server returned 404 Not Found", "the camera has no such stream (404)"),
    ])
    func ffmpegsLineBecomesASentence(line: String, reason: String) {
        #expect(FFmpegDiagnosis.networkReason(line) == reason)
    }

    @Test func anUnknownLineIsNotGuessedAt() {
        #expect(FFmpegDiagnosis.networkReason("[h264 @ 0x3] non-existing PPS 0 referenced") == nil)
    }

    @Test func aRefusedConnectionIsSaidSoAndExits69() throws {
        // Port 9 (discard) on loopback: nothing listens there.
        let result = try lookout(["run", "--input", "rtsp://user:secret@127.0.0.1:9/live", "--exit-on-loss", "-q"], timeout: 60)
        #expect(result.status == 69, "\(result.stderr)")
        let lost = try jsonObjects(result).filter { $0["kind"] as? String == "camera_lost" }
        #expect(lost.count == 1, "\(result.lines)")
        #expect(lost.first?["reason"] as? String == "the camera refused the connection", "\(lost)")
        #expect(result.stderr == "lookout: rtsp://user:***@127.0.0.1:9/live: camera lost (the camera refused the connection)\n", "\(result.stderr)")
        #expect(!result.stderr.contains("secret") && !result.lines.joined().contains("secret"))
    }
}
