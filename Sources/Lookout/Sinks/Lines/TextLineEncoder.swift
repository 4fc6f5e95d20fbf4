/// zbarcam's output format, `QR-Code:value` / `EAN-13:value`, followed by what a scanner tells,
/// each after a tab: the AIM symbology identifier, and for GS1 data its human-readable form
/// (`CODE-128:010950600013435210ABC`, tab, `]C1`, tab, `(01)09506000134352(10)ABC`). Scripts
/// written for zbarcam match the type as before; neither addition holds a tab or a space, so they
/// are read from the line's end whatever the value holds. Faces, which zbarcam does not find,
/// print as `Face:<id> <x>,<y> <width>x<height>` (pixels). Zones leave code and face lines as they
/// are; a zone's presence is `Zone-Presence:<zone>:on`.
public struct TextLineEncoder: Sendable {
    public init() {}

    public func encode(_ object: MetadataObject) -> [UInt8] {
        var line: String
        if let code = object as? MachineReadableCodeObject {
            line = code.type.zbarName + ":" + code.stringValue + "\t" + code.symbologyIdentifier
            if let gs1 = code.gs1 { line += "\t" + gs1.humanReadable }
        } else if let face = object as? FaceObject {
            let box = face.pixelBounds
            line = "Face:\(face.faceID) \(Int(box.x)),\(Int(box.y)) \(Int(box.width))x\(Int(box.height))"
        } else {
            line = object.type.rawValue
        }
        line.append("\n")
        return Array(line.utf8)
    }

    /// An event: codes as zbarcam prints them, the rest as `Kind:detail`.
    public func encode(_ event: DetectionEvent) -> [UInt8] {
        switch event {
        case .code(let code): return encode(code)
        case .faceEnter(let face): return Array("Face-Enter:\(face.faceID)\n".utf8)
        case .faceLeave(let leave): return Array("Face-Leave:\(leave.faceID)\n".utf8)
        case .presence(let change):
            let state = change.isPresent ? "on" : "off"
            // Zone names hold no ':' (`Zone`), so the line splits on it.
            if let zone = change.zone { return Array("Zone-Presence:\(zone):\(state)\n".utf8) }
            return Array("Presence:\(state)\n".utf8)
        case .recording(let report): return Array("Recording:\(report.file)\n".utf8)
        case .recordingFailed(let report): return Array("Recording-Failed:\(report.file)\n".utf8)
        }
    }
}
