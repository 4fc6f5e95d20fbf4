import Lookout

extension WebServer {
    /// Where the server listens, who may ask it what, and how much.
    public struct Configuration: Sendable {
        public var address: WebServerAddress
        /// Required of every request but `/healthz` (bearer token, or basic-auth password).
        public var token: [UInt8]?
        /// Pictures a second per viewer of the MJPEG stream, at most.
        public var previewRate = 5.0
        /// Where `/snapshots/NAME` reads from (one pipeline's; `Camera` says it per camera).
        public var snapshotDirectory: String?
        /// Where `/api/recordings` and `/recordings/NAME` read from (as above).
        public var recordingDirectory: String?
        /// Connections per client and in all, and how long a request's head and an idle
        /// connection may take (see `ConnectionLimits`).
        public var limits = ConnectionLimits()
        /// Host names besides loopback ones a loopback server without a token answers to, and
        /// origins whose pages may use the API (`--http-allowed-host`).
        public var allowedHosts: [String] = []
        /// Other sites whose pages may read the API with CORS (`--http-allowed-origin`).
        public var allowedOrigins: [AllowedOrigin] = []
        /// The names of the settings that hold `allowedHosts` and `allowedOrigins` where this
        /// server's operator gives them, for the refusals that tell a visitor what would let
        /// them in: the configuration file's keys unless the host of the library says otherwise
        /// (the command line: its options).
        public var allowedHostsSetting = "http-allowed-host"
        public var allowedOriginsSetting = "http-allowed-origin"

        public init(address: WebServerAddress) {
            self.address = address
        }
    }
}
