/// A V4L2 control of a camera (brightness, exposure, focus...), as `lookout devices --controls` lists them.
public struct CaptureDeviceControl: Sendable, Equatable {
    public var id: UInt32
    /// The driver's label ("Exposure Time, Absolute").
    public var label: String
    /// The name `--control` takes: the label in lower case with `_` for spaces and punctuation.
    public var name: String
    public var kind: Kind
    public var minimum: Int32
    public var maximum: Int32
    public var step: Int32
    public var defaultValue: Int32
    public var value: Int32?
    /// For menu controls, the named values.
    public var menu: [MenuItem]

    public enum Kind: String, Sendable { case integer, boolean, menu, button, integerMenu = "integer_menu" }

    public struct MenuItem: Sendable, Equatable {
        public var value: Int32
        public var name: String
    }

    static func name(forLabel label: String) -> String {
        var name = ""
        for character in label.lowercased() {
            if character.isLetter || character.isNumber {
                name.append(character)
            } else if !name.hasSuffix("_") {
                name.append("_")
            }
        }
        while name.hasSuffix("_") { name.removeLast() }
        return name
    }
}

extension CaptureDevice {
    /// The device's controls with their current values.
    public func controls() throws(DeviceError) -> [CaptureDeviceControl] {
        let device = try V4L2Device.open(uniqueID, driver: driver)
        defer { device.close() }
        return device.controls().compactMap { control in
            let kind: CaptureDeviceControl.Kind
            switch control.type {
            case 1: kind = .integer
            case 2: kind = .boolean
            case 3: kind = .menu
            case 4: kind = .button
            case 9: kind = .integerMenu
            default: return nil
            }
            return CaptureDeviceControl(
                id: control.id, label: control.name, name: CaptureDeviceControl.name(forLabel: control.name), kind: kind,
                minimum: control.minimum, maximum: control.maximum, step: control.step,
                defaultValue: control.defaultValue, value: control.value,
                menu: control.menu.map { .init(value: $0.index, name: $0.name) })
        }
    }
}
