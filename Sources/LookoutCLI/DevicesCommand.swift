import ArgumentParser
import Lookout

struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the cameras (V4L2 capture devices) with their formats, sizes and frame rates.",
        discussion: "Metadata, output and radio nodes are left out. Formats Lookout cannot read are listed by name only; libv4l2's software-converted formats are not listed.")

    @Flag(name: .long, help: "Print JSON instead of a table.")
    var json = false

    @Flag(name: .long, help: "Also list each camera's controls (for --control name=value).")
    var controls = false

    @Option(name: .long, help: ArgumentHelp("Only this device.", valueName: "path"))
    var device: String?

    func run() throws {
        let devices: [CaptureDevice]
        if let device {
            do { devices = [try CaptureDevice(path: device)] } catch { throw fail(.device(error)) }
        } else {
            devices = CaptureDevice.devices()
        }
        if json {
            var writer = JSONWriter()
            writer.beginArray()
            for device in devices { write(device, to: &writer) }
            writer.endArray()
            print(String(decoding: writer.bytes, as: UTF8.self))
            return
        }
        if devices.isEmpty {
            printDiagnostic("no camera found (no /dev/video* capture device)")
            return
        }
        for device in devices { printTable(device) }
    }

    /// Formats grouped by pixel format: "MJPG  1280x720 (30, 15 fps)".
    private func printTable(_ device: CaptureDevice) {
        print("\(device.uniqueID)  \(device.localizedName)  [driver \(device.driverName), bus \(device.busInfo)]")
        if let stable = device.stablePath { print("  stable path: \(stable)") }
        var order = [FourCC]()
        for format in device.formats where !order.contains(format.fourcc) { order.append(format.fourcc) }
        let unread = order.filter { $0.pixelFormat == nil }
        for fourcc in order where fourcc.pixelFormat != nil {
            let sizes = device.formats.filter { $0.fourcc == fourcc }
            print("  \(fourcc.description.padding(toLength: 4))  \(sizes.first?.name ?? "")")
            for size in sizes {
                let rates = size.frameRateRanges.map(\.description).joined(separator: ", ")
                if let range = size.sizeRange {
                    print("        \(range.minWidth)x\(range.minHeight) to \(range.maxWidth)x\(range.maxHeight), steps \(range.stepWidth)x\(range.stepHeight)" + (rates.isEmpty ? "" : "  (\(rates) fps)"))
                } else {
                    print("        \(size.width)x\(size.height)" + (rates.isEmpty ? "" : "  (\(rates) fps)"))
                }
            }
        }
        if !unread.isEmpty {
            print("  also offers, not read by Lookout: " + unread.map(\.description).joined(separator: " "))
        }
        if controls {
            do {
                let list = try device.controls()
                print("  controls:")
                for control in list {
                    var line = "    \(control.name) (\(control.kind.rawValue)) \(control.minimum)..\(control.maximum)"
                    line += " default \(control.defaultValue)"
                    if let value = control.value { line += " value \(value)" }
                    if !control.menu.isEmpty { line += "  [" + control.menu.map { "\($0.value)=\($0.name)" }.joined(separator: ", ") + "]" }
                    print(line)
                }
            } catch {
                printDiagnostic(error.description)
            }
        }
    }

    private func write(_ device: CaptureDevice, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("path"); writer.string(device.uniqueID)
        writer.key("stable_path"); if let stable = device.stablePath { writer.string(stable) } else { writer.null() }
        writer.key("card"); writer.string(device.localizedName)
        writer.key("driver"); writer.string(device.driverName)
        writer.key("bus"); writer.string(device.busInfo)
        writer.key("formats")
        writer.beginArray()
        for format in device.formats {
            writer.beginObject()
            writer.key("pixel_format"); writer.string(format.fourcc.description)
            writer.key("name"); writer.string(format.name)
            writer.key("supported"); writer.bool(format.isSupported)
            guard format.isSupported else {
                writer.endObject()
                continue
            }
            if let range = format.sizeRange {
                writer.key("size_range")
                writer.beginObject()
                writer.key("min_width"); writer.integer(range.minWidth)
                writer.key("max_width"); writer.integer(range.maxWidth)
                writer.key("step_width"); writer.integer(range.stepWidth)
                writer.key("min_height"); writer.integer(range.minHeight)
                writer.key("max_height"); writer.integer(range.maxHeight)
                writer.key("step_height"); writer.integer(range.stepHeight)
                writer.endObject()
            } else {
                writer.key("width"); writer.integer(format.width)
                writer.key("height"); writer.integer(format.height)
            }
            writer.key("frame_rates")
            writer.beginArray()
            for rate in format.frameRateRanges {
                writer.beginObject()
                writer.key("min"); writer.number(rate.minFrameRate, fractionDigits: 3)
                writer.key("max"); writer.number(rate.maxFrameRate, fractionDigits: 3)
                writer.endObject()
            }
            writer.endArray()
            writer.endObject()
        }
        writer.endArray()
        if controls, let list = try? device.controls() {
            writer.key("controls")
            writer.beginArray()
            for control in list {
                writer.beginObject()
                writer.key("name"); writer.string(control.name)
                writer.key("label"); writer.string(control.label)
                writer.key("kind"); writer.string(control.kind.rawValue)
                writer.key("min"); writer.integer(control.minimum)
                writer.key("max"); writer.integer(control.maximum)
                writer.key("step"); writer.integer(control.step)
                writer.key("default"); writer.integer(control.defaultValue)
                writer.key("value"); if let value = control.value { writer.integer(value) } else { writer.null() }
                writer.endObject()
            }
            writer.endArray()
        }
        writer.endObject()
    }
}
