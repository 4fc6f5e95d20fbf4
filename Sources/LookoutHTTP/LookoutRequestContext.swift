import Hummingbird
import NIOCore

/// The request context of Lookout's routes: Hummingbird's basics, and the connection's channel,
/// so that a streaming client that stops reading can be disconnected.
struct LookoutRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }

    /// No route takes a body: anything bigger than a few bytes is refused before it is read.
    var maxUploadSize: Int { 4096 }
}
