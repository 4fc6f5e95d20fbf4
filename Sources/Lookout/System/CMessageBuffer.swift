extension String {
    /// Text a C function wrote into a NUL-terminated buffer of ours (error messages).
    init(nulTerminated buffer: [CChar]) {
        self.init(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
