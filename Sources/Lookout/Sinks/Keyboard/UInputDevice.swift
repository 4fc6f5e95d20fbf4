import CUInput
#if canImport(Glibc)
import Glibc
#endif

/// Where a keyboard output's key events go: the virtual keyboard, or a recording in tests.
public protocol KeyboardDevice: AnyObject, Sendable {
    /// Sends one key press or release, with the report that delivers it to readers.
    func send(_ event: KeyEvent) throws(UInputError)
    /// Removes the device; readers' reads then fail with ENODEV. Once; sends after it fail.
    func destroy()
}

/// A virtual keyboard made through the kernel's uinput driver (`/dev/uinput`): it appears to the
/// system as a keyboard (`/dev/input/eventN`, and to X, Wayland and the console) until destroyed
/// or its descriptor is closed. Sends and the destroy hold its lock: the keyboard output's typist
/// sends, and a stop may destroy it from another thread meanwhile.
public final class UInputDevice: KeyboardDevice, Sendable {
    public static let defaultPath = "/dev/uinput"
    /// USB IDs shown to the system ("Lookout"), so that rules can match the device.
    public static let vendor: UInt16 = 0x4c4b, product: UInt16 = 0x0001

    public let path: String
    /// The name the system shows (`/proc/bus/input/devices`, `libinput list-devices`).
    public let name: String
    private let descriptor = Locked<FileDescriptor?>(nil)

    /// Opens `path` and makes a keyboard named `name` (cut to the 79 bytes uinput keeps, at a
    /// character's end) that can press `keys`.
    public init(path: String = UInputDevice.defaultPath, name: String, keys: Set<UInt16>) throws(UInputError) {
        self.path = path
        self.name = Self.fitted(name)
        let fd = path.withPlatformPath { open($0, O_WRONLY | O_NONBLOCK | O_CLOEXEC) }
        guard fd >= 0 else { throw .open(path: path, errno: .current) }
        let descriptor = FileDescriptor(rawValue: fd)
        // A step that fails closes the descriptor (deinit does not run for an init that throws).
        func failed(_ step: String) -> UInputError {
            let error = UInputError.create(path: path, step: step, errno: .current)
            try? descriptor.close()
            return error
        }
        guard lk_ui_set_evbit(fd, Int32(LK_EV_KEY)) == 0 else { throw failed("UI_SET_EVBIT") }
        for key in keys.sorted() where lk_ui_set_keybit(fd, Int32(key)) != 0 {
            throw failed("UI_SET_KEYBIT \(key)")
        }
        guard self.name.withCString({ lk_uinput_write_setup(fd, $0, Self.vendor, Self.product, 1) }) > 0 else {
            throw failed("the device setup")
        }
        guard lk_ui_dev_create(fd) == 0 else { throw failed("UI_DEV_CREATE") }
        self.descriptor.withLock { $0 = descriptor }
    }

    deinit { destroy() }

    public func send(_ event: KeyEvent) throws(UInputError) {
        try descriptor.withLock { descriptor throws(UInputError) in
            guard let fd = descriptor?.rawValue else { throw .write(path: path, errno: Errno(rawValue: ENODEV)) }
            try write(fd, type: LK_EV_KEY, code: event.code, value: event.pressed ? 1 : 0)
            try write(fd, type: LK_EV_SYN, code: LK_SYN_REPORT, value: 0)
        }
    }

    public func destroy() {
        guard let descriptor = descriptor.withLock({ descriptor in defer { descriptor = nil }; return descriptor }) else { return }
        // Closing alone destroys it too; the ioctl first makes it explicit for readers.
        _ = lk_ui_dev_destroy(descriptor.rawValue)
        try? descriptor.close()
    }

    private func write(_ fd: Int32, type: UInt16, code: UInt16, value: Int32) throws(UInputError) {
        while lk_uinput_write_event(fd, type, code, value) != lk_uinput_event_size() {
            if Errno.current != .interrupted { throw .write(path: path, errno: .current) }
        }
    }

    /// `name` cut to what uinput keeps (UINPUT_MAX_NAME_SIZE less the terminating NUL), never
    /// inside a character's UTF-8 bytes.
    static func fitted(_ name: String) -> String {
        var fitted = ""
        for character in name {
            guard fitted.utf8.count + String(character).utf8.count < Int(LK_UINPUT_MAX_NAME_SIZE) else { break }
            fitted.append(character)
        }
        return fitted
    }
}
