/// The environment variables a hook gets besides Lookout's own environment: a few fields of the
/// event, so simple hooks need not parse the JSON on their standard input.
///
/// Values are data, never code: hooks run without a shell, and a variable's value is only
/// dangerous to a hook that hands it to `eval` or `sh -c` itself. A code value holding a NUL byte
/// (which no environment variable can carry) leaves LOOKOUT_VALUE out; the JSON has it exactly.
public enum HookEnvironment {
    public static func variables(for event: DetectionEvent, id: String? = nil, source: String, camera: String? = nil) -> [(String, String)] {
        let frame = event.frame
        var variables: [(String, String)] = [("LOOKOUT_EVENT", event.kind)]
        if let id { variables.append(("LOOKOUT_EVENT_ID", id)) }
        variables += [
            ("LOOKOUT_SOURCE", source),
            ("LOOKOUT_PTS", frame.presentationTime.seconds.formatted(maxFractionDigits: 6)),
            ("LOOKOUT_TIME", frame.wallClockTime.rfc3339),
        ]
        if let camera { variables.append(("LOOKOUT_CAMERA", camera)) }
        if let zone = event.zone { variables.append(("LOOKOUT_ZONE", zone)) }
        switch event {
        case .code(let code):
            variables.append(("LOOKOUT_TYPE", code.type.rawValue))
            variables.append(("LOOKOUT_SYMBOLOGY", code.type.zbarName))
            variables.append(("LOOKOUT_AIM_ID", code.symbologyIdentifier))
            if !code.stringValue.utf8.contains(0) { variables.append(("LOOKOUT_VALUE", code.stringValue)) }
            variables.append(("LOOKOUT_ENCODING", code.textEncoding.rawValue))
        case .faceEnter(let face):
            variables.append(("LOOKOUT_FACE_ID", String(face.faceID)))
        case .faceLeave(let leave):
            variables.append(("LOOKOUT_FACE_ID", String(leave.faceID)))
        case .presence(let change):
            variables.append(("LOOKOUT_STATE", change.isPresent ? "on" : "off"))
            variables.append(("LOOKOUT_FACES", String(change.faceCount)))
        case .recording(let report), .recordingFailed(let report):
            variables.append(("LOOKOUT_FILE", report.file))
        }
        return variables
    }
}
