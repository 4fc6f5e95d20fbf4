extension MQTTEventPublisher {
    /// What a stop left undelivered, and why.
    public struct Undelivered: Sendable, Equatable {
        public enum Cause: Sendable, Equatable {
            /// Connected, and the broker did not acknowledge them within the stop's wait.
            case notAcknowledged(seconds: Double)
            /// The attempt under way (TCP connect, or CONNECT sent) got no answer in this long.
            case noAnswer(seconds: Double)
            case cannotConnect(String)
            case connectionLost(String)

            /// The same cause whatever the seconds: what a report puts on one line.
            var kind: Cause {
                switch self {
                case .notAcknowledged: .notAcknowledged(seconds: 0)
                case .noAnswer: .noAnswer(seconds: 0)
                default: self
                }
            }

            var seconds: Double? {
                switch self {
                case .notAcknowledged(let seconds), .noAnswer(let seconds): seconds
                default: nil
                }
            }

            /// Words for a sentence ("the broker did not answer within 2 s").
            public var description: String {
                switch self {
                case .notAcknowledged(let seconds): "the broker did not acknowledge them within \(Self.format(seconds)) s"
                case .noAnswer(let seconds): "the broker did not answer within \(Self.format(seconds)) s"
                case .cannotConnect(let reason): "cannot connect (\(reason))"
                case .connectionLost(let reason): "the connection was lost (\(reason))"
                }
            }

            /// Whole seconds, or tenths under ten ("2", "0.4").
            static func format(_ value: Double) -> String {
                let tenths = Int(max(0, value) * 10)
                return value >= 10 || tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)"
            }
        }

        /// Events and retained state messages the broker did not acknowledge.
        public var messages: Int
        public var cause: Cause
        /// Events of those kept in the outbox for the next start.
        public var kept = 0

        public init(messages: Int, cause: Cause, kept: Int = 0) {
            self.messages = messages
            self.cause = cause
            self.kept = kept
        }

        /// Why a stop that waited `waited` seconds left messages behind, from what the connection
        /// knows: unacknowledged while connected; else the attempt under way, the last failure to
        /// connect, the last loss, or no answer yet to a first attempt not under way.
        static func cause(connected: Bool, waitingForBroker: Double?, lastFailure: String?, lastLoss: String?,
                          waited: Double) -> Cause {
            if connected { return .notAcknowledged(seconds: waited) }
            if let waitingForBroker { return .noAnswer(seconds: waitingForBroker) }
            if let lastFailure { return .cannotConnect(lastFailure) }
            if let lastLoss { return .connectionLost(lastLoss) }
            return .noAnswer(seconds: waited)
        }
    }
}
