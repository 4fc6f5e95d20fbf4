import Lookout
import Logging
import LookoutHTTP

extension ConfigurationKey {
    /// Every key, in the order of `lookout run --help`.
    public static var all: [ConfigurationKey] { table.keys }

    /// The keys Lookout declares; `table` holds them unless a test declares more.
    package static let builtIn: [ConfigurationKey] = capture + detection + events + snapshots + recordings + keyboard + output + mqtt + hooks + http + limits

    static let timeRange: ClosedRange<Double> = 0...86_400
    /// The library's own defaults, which the keys state rather than repeat.
    private static let eventDefaults = EventSettings()
    private static let recordingDefaults = ClipRecorder.Settings()
    private static let snapshotDefaults = SnapshotWriter.Options()
    private static let outboxDefaults = OutboxLimits()
    private static let keyboardDefaults = KeyboardEventSink.Settings()

    private static let capture: [ConfigurationKey] = [
        .init("size", .capture, .camera, \.size, .frameSize, defaultText: "1280x720 or the nearest offered",
              valueName: "WxH", "Camera frame size."),
        .init("pixel-format", .capture, .camera, \.pixelFormat, .fourcc, defaultText: "MJPG, then YUYV, GREY, NV12, YU12",
              "Camera pixel format, as `lookout devices` lists it."),
        .init("buffers", .capture, .camera, \.buffers, .integer(2...32), default: 4, "Driver buffers to stream with."),
        .init("control", .capture, .camera, \.controls, .controls, valueName: "name=value", "Camera controls set before streaming, by the names `lookout devices --controls` shows (on the command line, name=value)."),
        .init("watchdog", .capture, .camera, \.watchdog, .number(CaptureDeviceInput.watchdogRange, unit: " seconds").called("seconds"), default: 3,
              "Seconds without a frame before the camera counts as lost."),
        .init("exit-on-loss", .capture, .camera, \.exitOnLoss, .bool, default: false,
              "Exit with status 69 when the camera is lost, instead of reconnecting."),
        .init("fps", .capture, .camera, \.fps, .number(FrameRate.validRange), defaultText: "30 where offered",
              "Camera frame rate to ask for; for files, the rate that times MJPEG input (30 when not given) or overrides a Y4M header."),
        .init("realtime", .capture, .camera, \.realtime, .bool, default: false,
              "Behave like a camera: drop frames the detectors cannot keep up with; a file is paced at its frame rate, a pipe taken as it comes."),
        .init("hwaccel", .capture, .camera, \.hwaccel, .hardwareAcceleration, "Hardware decoding for inputs read through ffmpeg."),
    ]

    private static let minFace = FaceDetectorConfiguration.defaultMinSize
    /// The standard pixel budget as the square it is (8192x8192), else as a count.
    private static let standardPixels: String = {
        let pixels = PixelBudget.standard.maximumPixels, side = Int(Double(pixels).squareRoot())
        return side * side == pixels ? "\(side)x\(side)" : "\(pixels)"
    }()

    private static let detection: [ConfigurationKey] = [
        .init("types", .detection, .camera, \.types, .kinds, default: MetadataObjectType.defaultTypes, valueName: "kinds",
              "Kinds to look for, comma-separated: face, the codes ZBar reads, and " + MetadataObjectType.zxingOnlyTypes.map(\.rawValue).joined(separator: ", ")
              + " (read by zxing-cpp: boarding passes, tickets, GS1 labels; they cost nothing unless asked for)."),
        .init("rect-of-interest", .detection, .camera, \.rectOfInterest, .rect, defaultText: "the whole frame",
              valueName: "x,y,w,h", "Search only this part of the frame: x, y, width, height as fractions of the frame, top-left origin."),
        .init("density", .detection, .camera, \.density, .integer(1...16), default: 2,
              "ZBar scan density: 1 scans every line; 2 every other line, half the work; 2-4 may miss thin or small codes (in scan, zxing-cpp reads beside ZBar)."),
        .init("code-budget", .detection, .camera, \.codeBudget, .number(0...60_000, unit: " ms"), defaultText: DetectionProfile.runThenScan(\.codeBudget),
              valueName: "ms", "Milliseconds a frame or image ZBar read no code in may spend on a second look: ZBar on prepared copies (contrast stretched, halved, inverted, sharpened, and enlarged twice for pictures up to a megapixel) and zxing-cpp; in scan, PDF417, Aztec and DataMatrix get as long again (0 = off)."),
        .init("code-budget-rate", .detection, .camera, \.codeBudgetRate, .number(0...1000), default: 4,
              "Second looks per second of video at most (0 = on every frame ZBar read nothing in): bounds what a camera showing no code costs."),
        .init("charset", .detection, .camera, \.charset, .charset, default: "auto",
              valueName: "name", "Read code payloads in this charset when their bytes are valid in it (auto guesses); raw_base64 always holds the exact bytes."),
        .init("code-resolution", .detection, .camera, \.codeResolution, .choice, defaultText: DetectionProfile.runThenScan(\.codeResolution),
              "Image ZBar reads: full, half (a quarter of the work; for codes whose bars and modules are at least 2 pixels wide), or auto (half for frames 1280 pixels wide or more). At half, MJPEG frames not due for faces are decoded at half size."),
        .init("face-rate", .detection, .camera, \.faceRate, .number(0...1000), default: 10,
              "Face analyses per second of video at most (0 = every frame). Codes are still read on every frame; faces run beside them on their own queue."),
        .init("code-scan-rate", .detection, .camera, \.codeScanRate, .number(0...1000), defaultText: DetectionProfile.runThenScan(\.codeScanRate),
              "Whole-frame code scans per second of video at most; in between, ZBar reads only windows around the codes it follows (and, for cameras, around small changes), where it reads what the whole frame would, and frames with nothing to look at are not decoded (0 = the whole frame on every frame). At the default a code appearing anywhere is read within 100 ms at 30 fps."),
        .init("face-full-search", .detection, .camera, \.faceFullSearch, .duration(0...3600),
              defaultText: DetectionProfile.runThenScan(\.faceFullSearch) { DurationValue.words(seconds: $0) },
              "Time between searches of the whole picture for faces; in between, an analysis looks only around the faces being followed and where the picture moved, for a fraction of the work, and a face that appears where nothing seemed to move is found within this long (0 = the whole picture at every analysis)."),
        .init("motion-threshold", .detection, .camera, \.motionThreshold, .integer(0...255),
              defaultText: "4 for cameras and real-time input, 0 for files read as fast as possible",
              valueName: "levels", "Skip the detectors on frames where no 16x16 block changed by more than this many grey levels since the last analysed frame; they get that frame's results (0 = analyse every frame). After a second without change, one frame in three is looked at."),
        .init("face-model", .detection, .camera, \.faceModel, .path, defaultText: "models/haarcascade_frontalface_default.xml",
              "Haar cascade XML for faces."),
        .init("face-verifier", .detection, .camera, \.faceVerifier, .path, defaultText: "models/haarcascade_frontalface_alt2.xml",
              valueName: "path|none", "A second Haar cascade every face must also pass, searched around each candidate (none = off): it removes most false faces on textures, checkerboards and animals."),
        .init("verify-neighbors", .detection, .camera, \.verifyNeighbors, .integer(1...100), defaultText: "4 × min-neighbors (12)",
              "Face verifier: raw hits it needs around a face; the profile cascade needs 7/12 of it."),
        .init("face-profile", .detection, .camera, \.faceProfile, .path, defaultText: "models/haarcascade_profileface.xml",
              valueName: "path|none", "A profile-face Haar cascade that may confirm, either way round, a face the verifier refused: faces turned too far for it, or half hidden by a hand (none = off; no effect with face-verifier none)."),
        .init("face-join", .detection, .camera, \.faceJoin, .bool, defaultText: DetectionProfile.runThenScan(\.faceJoin),
              "Also search the whole frame with the verifier's cascade and keep the faces the first cascade confirms around them: faces either cascade misses alone, for a second full search; no effect with face-verifier none."),
        .init("face-confirm", .detection, .camera, \.faceConfirm, .integer(1...10), default: DetectionProfile.video.faceConfirmations,
              "Video: analyses a face must be found in (within a second of each other) before it is reported. 1 reports a face on its first analysis; 2 drops faces that flicker on one frame, one analysis later (0.1 s at face-rate 10)."),
        .init("scale-factor", .detection, .camera, \.scaleFactor, .number(1.01...4), defaultText: DetectionProfile.runThenScan(\.scaleFactor),
              valueName: "factor", "Haar detector: window growth between scales."),
        .init("min-neighbors", .detection, .camera, \.minNeighbors, .integer(0...100), default: 3,
              "Haar detector: overlapping hits a face needs."),
        .init("min-face", .detection, .camera, \.minFace, .integer(1...16384, unit: " pixels"), defaultText: "\(minFace) pixels of the face-width copy (\(minFace * 1280 / DetectionProfile.video.faceWidth) in a 1280-wide frame; \(minFace) for scan)",
              valueName: "pixels", "Haar detector: smallest face, in frame pixels."),
        .init("face-width", .detection, .camera, \.faceWidth,
              .integer(ValueRange(text: "0 (never) or 64 to 16384 pixels", read: { Int($0) }, allows: { $0 == 0 || (64...16384).contains($0) })),
              defaultText: DetectionProfile.runThenScan(\.faceWidth), valueName: "pixels", "Shrink frames wider than this before face detection. Frames are also shrunk when OpenCV's image pyramid would exceed a quarter of max-pixels."),
        .init("masks", .detection, .camera, \.masks, .masks, option: "mask",
              valueName: "x,y x,y x,y...", "Parts of the picture never reported, each at least 3 points x,y (fractions of the frame): a detection whose centre is in one is dropped, and motion in them does not wake the detectors."),
        .init("zones", .detection, .camera, \.zones, .zones, option: "zone",
              valueName: "name=x,y x,y x,y...", "Named parts of the picture (on the command line, NAME=x,y x,y x,y...): each line carries the first zone holding its centre (`zone`); presence is kept per zone (the first zone given wins)."),
    ]

    private static let events: [ConfigurationKey] = [
        .init("events", .events, .camera, \.events, .choice, default: .frames,
              "frames: a line per object per analysed frame; changes: a line per event (code read, face_enter, face_leave, presence)."),
        .init("dedupe", .events, .camera, \.dedupe, .duration(timeRange), default: DurationValue(time: eventDefaults.dedupeWindow),
              "A code is reported once while in view and not again until it has been gone this long."),
        .init("presence-on", .events, .camera, \.presenceOn, .integer(1...100), default: eventDefaults.presenceOnCount,
              "Presence turns on after this many analyses with a face within presence-window."),
        .init("presence-window", .events, .camera, \.presenceWindow, .duration(timeRange), default: DurationValue(time: eventDefaults.presenceOnWindow),
              "The window for presence-on (above 0 when presence-on is above 1)."),
        .init("presence-off", .events, .camera, \.presenceOff, .duration(timeRange), default: DurationValue(time: eventDefaults.presenceOffDelay),
              "Presence turns off only after this long without a face."),
        .init("face-leave", .events, .camera, \.faceLeave, .duration(timeRange), default: DurationValue(time: eventDefaults.faceLeaveDelay),
              "A face missed for up to this long keeps its ID; longer, and by 3 analyses in a row (or 3 times this long, however few analyses frames dropped left), it has left."),
    ]

    private static let snapshots: [ConfigurationKey] = [
        .init("snapshots", .snapshots, .camera, \.snapshots, .path,
              "Write a JPEG of the frame of each code, face_enter and presence-on event into this folder (made if missing; DIR/<camera> with several cameras); the event line names it in \"snapshot\"."),
        .init("snapshot-boxes", .snapshots, .camera, \.snapshotBoxes, .bool, default: snapshotDefaults.drawsBoxes, "Draw the event's objects (outline and label) on snapshots."),
        .init("snapshot-clean", .snapshots, .camera, \.snapshotClean, .bool, default: snapshotDefaults.writesCleanCopy, "Also write each snapshot without boxes, as <name>.clean.jpg."),
        .init("snapshot-keep", .snapshots, .camera, \.snapshotKeep, .integer(1...10_000_000), default: snapshotDefaults.keep,
              "Keep the newest n snapshots in the folder; older ones are deleted."),
        .init("snapshot-on", .snapshots, .camera, \.snapshotOn, .snapshotTriggers, default: SnapshotTrigger.allCases,
              "The events that take a snapshot, comma-separated: code, face_enter, presence (when it turns on)."),
    ]

    private static let recordings: [ConfigurationKey] = [
        .init("record", .recordings, .camera, \.record, .path,
              "Record Matroska clips around events into this folder (made if missing; DIR/<camera> with several cameras); each finished clip gives a \"recording\" line."),
        .init("record-on", .recordings, .camera, \.recordOn, .choice, default: recordingDefaults.trigger,
              "What makes a clip: presence (a clip per presence session), codes (a clip per code event), or always (continuous segments)."),
        .init("pre-roll", .recordings, .camera, \.preRoll, .duration(0...60), default: DurationValue(time: recordingDefaults.preRoll),
              "How much of the stream before the event a clip starts with (kept in memory, within record-memory)."),
        .init("post-roll", .recordings, .camera, \.postRoll, .duration(0...3600), default: DurationValue(time: recordingDefaults.postRoll),
              "How long a clip goes on after the event ends (the last face seen, the code read)."),
        .init("segment", .recordings, .camera, \.segment, .duration(1...86_400), default: DurationValue(time: recordingDefaults.segmentDuration),
              "Length of each file with record-on: always."),
        .init("record-keep", .recordings, .camera, \.recordKeep, .bytes((1 << 20)...(1 << 50)), "Keep at most this much in clips (e.g. 10G, 500M); the oldest are deleted first."),
        .init("record-max-age", .recordings, .camera, \.recordMaxAge, .age(1...(3650 * 86_400)), "Delete clips older than this (e.g. 7d, 12h, 30m)."),
        .init("record-memory", .recordings, .camera, \.recordMemory, .bytes((1 << 20)...(1 << 34)),
              default: ByteCountValue(bytes: Int64(recordingDefaults.frameRingCapacity)),
              "Memory for the pre-roll and for frames waiting for the disk, at most: the frame ring's bound."),
    ]

    private static let keyboard: [ConfigurationKey] = [
        .init("keyboard", .keyboard, .camera, \.keyboard, .bool, default: false,
              "Type each code event on a virtual keyboard, \"Lookout scanner <camera>\" (through /dev/uinput; $LOOKOUT_UINPUT names another node), as a barcode scanner in keyboard-wedge mode does: kiosk and point-of-sale software reads it as a scanner. Needs write access to /dev/uinput (exit 77 without)."),
        .init("keyboard-layout", .keyboard, .camera, \.keyboardLayout, .choice, default: keyboardDefaults.typing.layout,
              "The keyboard layout of the desktop or console that receives the keys (uk is XKB's gb)."),
        .init("keyboard-suffix", .keyboard, .camera, \.keyboardSuffix, .choice, default: keyboardDefaults.typing.suffix, "The key typed after each code."),
        .init("keyboard-prefix", .keyboard, .camera, \.keyboardPrefix, .text("1 to 64 bytes of text the layout types", maximumBytes: 64),
              "Typed before each code."),
        .init("keyboard-aim", .keyboard, .camera, \.keyboardAIM, .bool, default: false,
              "Type the AIM symbology identifier (]Q1 QR, ]E0 EAN-13, ]C1 GS1-128, ...) before each code, after the prefix."),
        .init("keyboard-delay", .keyboard, .camera, \.keyboardDelay, .duration(0...1), default: DurationValue(seconds: keyboardDefaults.keyDelay),
              "Time between key events (each press and each release): 5ms types 100 characters a second."),
        .init("keyboard-dedupe", .keyboard, .camera, \.keyboardDedupe, .duration(0...60), default: DurationValue(seconds: keyboardDefaults.sameSymbolTimeout),
              "Same symbol timeout: a code is not typed again until it has been out of view this long (on top of dedupe)."),
        .init("keyboard-gs", .keyboard, .camera, \.keyboardGS, .text("1 to 16 bytes of text the layout types", maximumBytes: 16),
              "Typed instead of GS (0x1D, the field separator of GS1 data), which no layout types; without it a code holding GS is refused."),
        .init("keyboard-substitute", .keyboard, .camera, \.keyboardSubstitute, .text("1 to 16 bytes of text the layout types", maximumBytes: 16),
              "Typed instead of any other character the layout cannot type; without it such a code is refused whole (never half typed), with a warning, counted."),
    ]

    private static let output: [ConfigurationKey] = [
        .init("format", .output, .global, \.format, .choice, default: .json, "Output format: json (one object per line) or text (zbarcam's TYPE:value)."),
        .init("stats", .output, .global, \.stats, .bool, default: false, "Write the end-of-run summary as a JSON line (kind \"stats\") on standard output instead of a sentence on standard error."),
        .init("quiet", .output, .global, \.quiet, .bool, default: false, "No summary on standard error."),
        .init("verbose", .output, .global, \.verbose, .bool, default: false, "With an error, also write what the library (OpenCV, libjpeg, libpng) said about it."),
        .init("log-level", .output, .global, \.logLevel, .choice, default: .info, valueName: "level",
              "The least severe diagnostics written to standard error (a reload applies it at once)."),
    ]

    private static let mqtt: [ConfigurationKey] = [
        .init("mqtt", .mqtt, .global, \.mqtt, .mqttURLs, secret: true,
              valueName: "url[,url...]", "Publish events to this broker, or to the brokers of one fabric (a cluster), comma-separated (mqtt://a:1883,mqtt://b:1883/prefix): connect to one, fail over to the next (docs/automation.md, docs/fleet.md)."),
        .init("mqtt-user", .mqtt, .global, \.mqttUser, .mqttText(maximumBytes: MQTTConfiguration.maximumCredentialBytes),
              valueName: "name", "MQTT user name (overrides the URL's)."),
        .init("mqtt-password-file", .mqtt, .global, \.mqttPasswordFile, .path,
              "Read the MQTT password from the first line of this file (a regular file; at most \(MQTTConfiguration.maximumCredentialBytes) bytes of UTF-8); LOOKOUT_MQTT_PASSWORD in the environment, or a systemd credential named mqtt-password, does the same."),
        .init("mqtt-ca", .mqtt, .global, \.mqttCA, .path, defaultText: "the system's", "CA certificates (PEM) to trust for mqtts://."),
        .init("mqtt-cert", .mqtt, .global, \.mqttCert, .path, "Client certificate (PEM) for mqtts://."),
        .init("mqtt-key", .mqtt, .global, \.mqttKey, .path, "Private key (PEM, unencrypted) of mqtt-cert."),
        .init("mqtt-client-id", .mqtt, .global, \.mqttClientID, .mqttText(maximumBytes: MQTTConfiguration.maximumGivenClientIDBytes),
              defaultText: "lookout-<host>, and -<prefix> for a prefix other than lookout", valueName: "id", "MQTT client ID, the same at every start so the brokers keep the session: each camera connects as <id>-<camera>."),
        .init("mqtt-queue", .mqtt, .global, \.mqttQueue, .integer(1...1_000_000), default: 10_000,
              "Code values for the scan trigger kept in memory while the broker is away (events wait in the outbox); past it the oldest are dropped."),
        .init("state-dir", .mqtt, .global, \.stateDir, .path, defaultText: StateDirectory.defaultText, valueName: "dir",
              "Where what outlives a run is kept: each camera's MQTT outbox (events not yet acknowledged by the broker) in <dir>/outbox/<client ID>, and its event numbers (ids go on across restarts) in <dir>/event-ids. Used with MQTT, or when given."),
        .init("outbox-max-size", .mqtt, .global, \.outboxMaxSize, .bytes((1 << 20)...(1 << 40)), default: ByteCountValue(bytes: outboxDefaults.maximumBytes),
              "A camera's MQTT outbox never grows past this; past it the oldest events are dropped."),
        .init("outbox-max-age", .mqtt, .global, \.outboxMaxAge, .age(1...(3650 * 86_400)), default: AgeValue(seconds: outboxDefaults.maximumAge),
              defaultText: AgeValue.words(seconds: outboxDefaults.maximumAge),
              "Events older than this are dropped from the MQTT outbox."),
        .init("ha-discovery", .mqtt, .global, \.haDiscovery, .bool, default: false, "Publish Home Assistant discovery configs (a presence sensor and a last-code sensor)."),
        .init("ha-prefix", .mqtt, .global, \.haPrefix, .mqttTopic, default: "homeassistant", valueName: "topic", "Home Assistant's discovery prefix."),
        .init("mqtt-name", .mqtt, .cameraOnly, \.mqttName, .cameraName, defaultText: "the camera's name",
              "The camera's name in MQTT topics and client IDs."),
    ]

    private static let hooks: [ConfigurationKey] = [
        .init("on-code", .hooks, .global, \.onCode, .command, valueName: "cmd [args...]", "Run this program for each code event: argv as given (no shell), the event JSON on its standard input, fields in LOOKOUT_* variables. On the command line its arguments cannot start with '-': wrap such a command in a script."),
        .init("on-presence", .hooks, .global, \.onPresence, .command, valueName: "cmd [args...]", "Run this program when presence turns on or off (LOOKOUT_STATE=on|off), as on-code does."),
        .init("hook-timeout", .hooks, .global, \.hookTimeout, .duration(0.001...86_400), default: DurationValue(seconds: 10),
              "A hook running longer is stopped: SIGTERM, then SIGKILL."),
        .init("hook-jobs", .hooks, .global, \.hookJobs, .integer(1...64), default: 4, "Hooks of one kind running at once, at most."),
    ]

    private static let http: [ConfigurationKey] = [
        .init("http", .http, .global, \.http, .httpAddress,
              valueName: "[addr:]port", "Serve the web view, JSON API, event stream and metrics on this [address:]port (address 127.0.0.1 unless given). With a file as input, serving goes on after its end until SIGINT or SIGTERM."),
        .init("http-token-file", .http, .global, \.httpTokenFile, .path,
              valueName: "file", "Require the token in this file (first line; 1 to \(TokenLimit.maximumBytes) printable ASCII characters) of every request but /healthz: as a bearer token, or as the basic-auth password in a browser. Under systemd, a credential named http-token does the same."),
        .init("http-insecure", .http, .global, \.httpInsecure, .bool, default: false,
              "Allow a non-loopback http address without a token: anyone who reaches it sees the camera."),
        .init("http-allowed-host", .http, .global, \.httpAllowedHosts, .list(of: .hostName, allowed: "a list of host names or addresses"),
              valueName: "name", "Host names (or addresses) the web view may be reached by besides localhost and 127.0.0.1: a loopback server without a token refuses requests naming any other Host (DNS rebinding), and pages of these names may use the API (Origin)."),
        .init("http-allowed-origin", .http, .global, \.httpAllowedOrigins, .list(of: .origin, allowed: "a list of origins, " + AllowedOrigin.form),
              valueName: "origin", "Other sites whose pages may read the API and /api/events with CORS; the token is still required (on /api/events it may be given as ?access_token=)."),
        .init("preview-fps", .http, .global, \.previewFPS, .number(0.1...30), default: 5, valueName: "fps", "Pictures a second per viewer of the live stream, at most."),
    ]

    private static let limits: [ConfigurationKey] = [
        .init("max-pixels", .limits, .global, \.maxPixels, .pixels(PixelBudget.allowedRange), default: PixelCountValue(PixelBudget.standard.maximumPixels),
              defaultText: standardPixels,
              "The largest frame or image decoded, as a pixel count or WxH: larger frames are dropped as corrupt before decoding; larger images and Y4M headers are refused."),
    ]
}
