extension KeyboardEventSink {
    /// How a camera's keyboard output types: what (`typing`), how fast, and what it holds back.
    public struct Settings: Sendable, Hashable {
        public var typing = KeyboardTyping()
        /// Seconds between key events (each press and each release). Keyboard-wedge applications
        /// tell a scanner from a person by keys coming fast (Odoo: at most 50 ms apart); some
        /// readers of input devices (remote desktops, some toolkits) lose keys that come with no
        /// gap at all. 5 ms gives 10 ms a character: a 20-character code in about 0.2 s.
        public var keyDelay = 0.005
        /// The same symbol timeout (`SameSymbolTimeout`), in seconds; 0 for none.
        public var sameSymbolTimeout = 0.5
        /// Seconds between making the device and its first key: readers of input devices (the
        /// desktop, libinput, a kiosk's evdev reader) open a new device after it appears, and a
        /// key sent before they have is lost to them.
        public var attachDelay = 0.5
        /// Codes waiting to be typed, at most; past it the oldest waiting is dropped (counted).
        public var queueCapacity = 32
        /// Seconds without a key event after which `finish()` takes the keyboard as hung and stops
        /// waiting for what is left to type.
        public var stallTimeout = 5.0

        public init() {}

        /// The name of a camera's virtual keyboard.
        public static func deviceName(camera: String) -> String { "Lookout scanner " + camera }
    }

    /// What a keyboard output did, since it was made.
    public struct Counts: Sendable, Equatable {
        /// Codes typed whole, suffix included.
        public var typed = 0
        /// Key events sent (presses and releases, modifiers included).
        public var keys = 0
        /// Codes held back by the same symbol timeout.
        public var deduplicated = 0
        /// Codes holding a character the layout cannot type and no substitute covers.
        public var refused = 0
        /// Codes dropped from the full queue, or still waiting when the stop's time ran out.
        public var dropped = 0
        /// Codes a key event could not be sent for (the device failed).
        public var failed = 0
    }
}
