import CMosquitto

/// libmosquitto's result codes in Lookout's words, for messages inside sentences. libmosquitto's
/// own strings are not used: some codes have none ("Unknown error"), and MOSQ_ERR_ERRNO means the
/// cause is in errno, which only the caller's thread still holds.
enum MQTTResultCode {
    /// Words for `code`; `errno` is the thread's errno read right after the call returned it.
    static func words(for code: Int32, errno: Errno) -> String {
        switch mosq_err_t(rawValue: code) {
        case MOSQ_ERR_SUCCESS: "no error"
        case MOSQ_ERR_CONN_PENDING: "the connection is still being made"
        case MOSQ_ERR_NOMEM: "out of memory"
        case MOSQ_ERR_PROTOCOL: "the broker broke the MQTT protocol"
        case MOSQ_ERR_INVAL: "an invalid value"
        case MOSQ_ERR_NO_CONN: "not connected"
        case MOSQ_ERR_CONN_REFUSED: "the broker refused the connection"
        case MOSQ_ERR_NOT_FOUND: "not found"
        case MOSQ_ERR_CONN_LOST: "the connection was lost"
        case MOSQ_ERR_TLS: "a TLS error"
        case MOSQ_ERR_PAYLOAD_SIZE: "the message is too large"
        case MOSQ_ERR_NOT_SUPPORTED: "not supported by this libmosquitto"
        case MOSQ_ERR_AUTH: "the broker refused the user name or password"
        case MOSQ_ERR_ACL_DENIED: "the broker denied access"
        case MOSQ_ERR_ERRNO: errno.rawValue == 0 ? "a system call failed without saying why" : errno.description
        case MOSQ_ERR_EAI, MOSQ_ERR_LOOKUP: "the broker's host name cannot be resolved"
        case MOSQ_ERR_PROXY: "the proxy failed"
        case MOSQ_ERR_MALFORMED_UTF8: "a topic or text is not valid UTF-8"
        case MOSQ_ERR_KEEPALIVE: "the broker did not answer within the keep-alive time"
        case MOSQ_ERR_MALFORMED_PACKET, MOSQ_ERR_DUPLICATE_PROPERTY: "the broker sent a malformed packet"
        case MOSQ_ERR_TLS_HANDSHAKE: "the TLS handshake failed"
        case MOSQ_ERR_QOS_NOT_SUPPORTED: "the broker does not support QoS 1"
        case MOSQ_ERR_OVERSIZE_PACKET: "the message is larger than the broker accepts"
        case MOSQ_ERR_OCSP: "the broker's certificate status (OCSP) was refused"
        case MOSQ_ERR_TIMEOUT: "the broker did not answer in time"
        case MOSQ_ERR_RETAIN_NOT_SUPPORTED: "the broker does not support retained messages"
        case MOSQ_ERR_ADMINISTRATIVE_ACTION: "the broker's administrator closed the connection"
        default: "libmosquitto error \(code)"
        }
    }

    /// Words for a CONNACK refusal code (MQTT 3.1.1).
    static func words(forRefusal code: Int32) -> String {
        switch code {
        case 1: "it does not speak MQTT 3.1.1"
        case 2: "it rejected the client ID"
        case 3: "the service is unavailable"
        case 4: "bad user name or password"
        case 5: "not authorised"
        default: "refusal code \(code)"
        }
    }
}
