import Hummingbird

extension HTTPFields {
    /// Every answer's headers: its type, and never cached (the picture and the numbers are live).
    static func uncached(type: String) -> HTTPFields {
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.cacheControl] = "no-store"
        return headers
    }
}

extension Response {
    /// `bytes` of `type`, never cached.
    static func uncached(_ status: HTTPResponse.Status, type: String, _ bytes: [UInt8]) -> Response {
        Response(status: status, headers: .uncached(type: type), body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// A short answer in words, never cached: a refusal, or why there is nothing.
    static func plainText(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: .uncached(type: "text/plain; charset=utf-8"),
                 body: ResponseBody(byteBuffer: ByteBuffer(string: text + "\n")))
    }
}
