// swift-tools-version:6.0
import Foundation
import PackageDescription

// OpenCV ships C++ headers under a versioned folder; Debian 12 puts them here.
let openCVInclude = "/usr/include/opencv4"

// zxing-cpp 3.1.1, built from its source release by scripts/zxing-cpp (scripts/setup runs it) into a
// cache outside the repository: $LOOKOUT_CACHE, else $XDG_CACHE_HOME/lookout, else ~/.cache/lookout.
let environment = ProcessInfo.processInfo.environment
let zxingPrefix = (environment["LOOKOUT_CACHE"]
    ?? ((environment["XDG_CACHE_HOME"] ?? ((environment["HOME"] ?? "/root") + "/.cache")) + "/lookout"))
    + "/zxing-cpp-3.1.1"

let package = Package(
    name: "Lookout",
    products: [
        // The capture library alone (session, devices, inputs, outputs, detectors, events): it
        // builds without Hummingbird, NIO or Yams.
        .library(name: "Lookout", targets: ["Lookout"]),
        // The web view, API and metrics over HTTP (Hummingbird).
        .library(name: "LookoutHTTP", targets: ["LookoutHTTP"]),
        // The service: configuration file (Yams), sinks in order, reload.
        .library(name: "LookoutService", targets: ["LookoutService"]),
        .executable(name: "lookout", targets: ["LookoutCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // The HTTP server (web view, API, metrics) only: the library and its tests do not wait on them.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.0"),
        // NIO's HTTP/1 types, for the web server's connection guard (already part of Hummingbird).
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.70.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.24.0"),
        // The configuration file (YAML): its nodes carry line and column, for refusals that say where.
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        // Running and stopping services in a ServiceGroup (already part of Hummingbird): the web
        // server's, and the whole service's for a host that runs its own (LifecycleService).
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        // Diagnostics with levels (already part of Hummingbird).
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        // The Swift API reference (scripts/api-docs); a plugin, built only when asked for.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        // C libraries, each behind a tiny shim header for what does not import into Swift
        // (ioctl request macros, variadic functions, fourcc macros).
        .systemLibrary(name: "CV4L2", path: "Sources/CV4L2", pkgConfig: "libv4l2",
                       providers: [.apt(["libv4l-dev"])]),
        .systemLibrary(name: "CZBar", path: "Sources/CZBar", pkgConfig: "zbar",
                       providers: [.apt(["libzbar-dev"])]),
        // uinput's ioctls (the virtual keyboard of --keyboard): kernel headers only, no library.
        .systemLibrary(name: "CUInput", path: "Sources/CUInput"),
        .systemLibrary(name: "CTurboJPEG", path: "Sources/CTurboJPEG", pkgConfig: "libturbojpeg",
                       providers: [.apt(["libturbojpeg0-dev"])]),
        // libmosquitto (libmosquitto-dev) is opened on first use, so runs without MQTT do not map it
        // or OpenSSL: forwarders in C.
        .target(name: "CMosquitto", path: "Sources/CMosquitto", linkerSettings: [.linkedLibrary("dl")]),
        // libavformat's Matroska muxer for recordings (libavformat-dev), opened on first use: a run that
        // records nothing does not map it and the hundred libraries it brings.
        .target(name: "CMatroska", path: "Sources/CMatroska", linkerSettings: [.linkedLibrary("dl")]),
        // OpenCV is C++: the little Lookout needs (Haar cascades, still-image decoding) is wrapped
        // behind an extern "C" API.
        .target(
            name: "COpenCV",
            path: "Sources/COpenCV",
            cxxSettings: [.unsafeFlags(["-I\(openCVInclude)", "-O2"])],
            linkerSettings: [
                .linkedLibrary("opencv_core"),
                .linkedLibrary("opencv_imgproc"),
                .linkedLibrary("opencv_objdetect"),
                .linkedLibrary("dl"), // opencv_imgcodecs is loaded on first use (ImageDecode.cpp)
                .linkedLibrary("stdc++"),
            ]
        ),
        // Plain code on planes (halving), shared by the library and its zxing-cpp reader (C++).
        .target(name: "CPlanes", path: "Sources/CPlanes", cxxSettings: [.unsafeFlags(["-O2"])]),
        // zxing-cpp, the first code reader, is C++ (C++17 for its headers): one extern "C" call, in
        // process, linked statically: the archive by its path, never a libZXing.so of the system's.
        .target(
            name: "CZXing",
            dependencies: ["CPlanes"],
            path: "Sources/CZXing",
            cxxSettings: [.unsafeFlags(["-O2", "-I\(zxingPrefix)/include"])],
            linkerSettings: [.unsafeFlags(["-Xlinker", "\(zxingPrefix)/lib/libZXing.a"]), .linkedLibrary("stdc++")]
        ),
        .target(
            name: "Lookout",
            dependencies: ["CV4L2", "CZBar", "CTurboJPEG", "CUInput", "COpenCV", "CPlanes", "CZXing", "CMosquitto", "CMatroska",
                           .product(name: "Logging", package: "swift-log")],
            path: "Sources/Lookout",
            // The JSON Schema of output lines lives beside the encoders that write them.
            exclude: ["Sinks/Lines/lookout-line.schema.json"]
        ),
        // The web view, its JSON API, Server-Sent Events and Prometheus metrics over HTTP.
        .target(
            name: "LookoutHTTP",
            dependencies: [
                "Lookout",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Sources/LookoutHTTP"
        ),
        // One configuration value (and its YAML file) and the service built and reloaded from it:
        // pipelines, sinks in their order, the MQTT node, the web server, per-camera folders.
        .target(
            name: "LookoutService",
            dependencies: ["Lookout", "LookoutHTTP", .product(name: "Yams", package: "Yams"), .product(name: "Logging", package: "swift-log"),
                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")],
            path: "Sources/LookoutService"
        ),
        .executableTarget(
            name: "LookoutCLI",
            dependencies: [
                "Lookout",
                "LookoutHTTP",
                "LookoutService",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/LookoutCLI"
        ),
        // Test tooling for the VM tests: drives a real camera through the public API and reports
        // frame counts, timing and drops as JSON (rate and buffer-holding checks).
        .executableTarget(
            name: "LookoutCaptureProbe",
            dependencies: ["Lookout"],
            path: "Tests/CaptureProbe"
        ),
        // libFuzzer targets (scripts/fuzz builds them with -sanitize=fuzzer); seeds in Corpus/.
        .executableTarget(
            name: "LookoutFuzz",
            dependencies: ["Lookout"],
            path: "Tests/Fuzz",
            exclude: ["Corpus", "Crashes", "good.jpg"]
        ),
        .testTarget(
            name: "LookoutTests",
            dependencies: ["Lookout", "LookoutHTTP", "LookoutService"],
            path: "Tests/LookoutTests"
        ),
    ],
    cxxLanguageStandard: .cxx17
)
