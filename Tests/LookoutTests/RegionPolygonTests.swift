import Foundation
import Testing
@testable import Lookout

/// Masks' and zones' polygons: which points they hold, their text and JSON forms, and the
/// sentence each mistake gets.
@Suite("Region polygons")
struct RegionPolygonTests {
    /// An L: the square (0.2...0.8)² without its top-right quarter (0.5...0.8, 0.2...0.5).
    static let ell = "0.2,0.2 0.5,0.2 0.5,0.5 0.8,0.5 0.8,0.8 0.2,0.8"

    @Test func aConcavePolygonHoldsItsInsideAndEdgesButNotItsNotch() throws {
        let polygon = try RegionPolygon(parsing: Self.ell)
        #expect(polygon.points.count == 6)
        #expect(polygon.bounds.x == 0.2 && polygon.bounds.y == 0.2 && polygon.bounds.maxX == 0.8 && polygon.bounds.maxY == 0.8)
        let inside = [(0.3, 0.3), (0.3, 0.7), (0.7, 0.7), (0.45, 0.45)]
        let notch = [(0.6, 0.3), (0.75, 0.25), (0.51, 0.49)]
        let outside = [(0.1, 0.5), (0.9, 0.5), (0.5, 0.1), (0.5, 0.9), (0, 0), (1, 1)]
        // On an edge or a corner, the notch's included.
        let boundary = [(0.2, 0.2), (0.2, 0.5), (0.35, 0.2), (0.5, 0.35), (0.5, 0.5), (0.65, 0.5), (0.8, 0.8), (0.5, 0.8)]
        for (x, y) in inside + boundary { #expect(polygon.contains(x: x, y: y), "(\(x), \(y)) should be inside") }
        for (x, y) in notch + outside { #expect(!polygon.contains(x: x, y: y), "(\(x), \(y)) should be outside") }
    }

    @Test func aTriangleAlongTheFrameEdgesHoldsTheCornerItSpans() throws {
        let triangle = try RegionPolygon([Point(x: 0, y: 0), Point(x: 1, y: 0), Point(x: 0, y: 1)])
        #expect(triangle.contains(Point(x: 0, y: 0)))
        #expect(triangle.contains(Point(x: 0.5, y: 0.5))) // on the hypotenuse
        #expect(triangle.contains(Point(x: 0.2, y: 0.2)))
        #expect(!triangle.contains(Point(x: 0.6, y: 0.6)))
        #expect(!triangle.contains(Point(x: 1, y: 1)))
    }

    @Test func theTextFormReadsBackToTheSamePolygon() throws {
        let polygon = try RegionPolygon(parsing: "  0.1,0.1   0.5,0.1\t0.5,0.5\n")
        #expect(polygon.points == [Point(x: 0.1, y: 0.1), Point(x: 0.5, y: 0.1), Point(x: 0.5, y: 0.5)])
        #expect(polygon.description == "0.1,0.1 0.5,0.1 0.5,0.5")
        #expect(try RegionPolygon(parsing: polygon.description) == polygon)
        #expect(try RegionPolygon(parsing: "0,0 1,0 1,1").description == "0.0,0.0 1.0,0.0 1.0,1.0")
    }

    @Test func eachMistakeIsRefusedWithItsOwnSentence() {
        let cases: [(String, RegionError, String)] = [
            ("0.1,0.1 0.5,0.1", .tooFewPoints(count: 2), "a polygon needs at least 3 points; this one has 2"),
            ("", .tooFewPoints(count: 0), "a polygon needs at least 3 points; this one has 0"),
            ("0.1,0.1 0.5,1.2 0.5,0.5", .coordinateOutOfRange(point: 1, axis: "y", value: 1.2),
             "point 2's y is 1.2; coordinates are fractions of the frame, 0 to 1"),
            ("-0.1,0.1 0.5,0.1 0.5,0.5", .coordinateOutOfRange(point: 0, axis: "x", value: -0.1),
             "point 1's x is -0.1; coordinates are fractions of the frame, 0 to 1"),
            ("0.1,0.1 0.5,0.1 nan,0.5", .coordinateNotFinite(point: 2, axis: "x"),
             "point 3's x is not a finite number; coordinates are fractions of the frame, 0 to 1"),
            ("0.1,0.1 0.5;0.1 0.5,0.5", .malformedPoint("0.5;0.1"),
             "'0.5;0.1' is not a point: a polygon is x,y pairs separated by spaces, e.g. '0.1,0.1 0.5,0.1 0.5,0.5'"),
            ("0.1,0.1 0.5,0.1,0.2 0.5,0.5", .malformedPoint("0.5,0.1,0.2"),
             "'0.5,0.1,0.2' is not a point: a polygon is x,y pairs separated by spaces, e.g. '0.1,0.1 0.5,0.1 0.5,0.5'"),
            ("0.1,0.1 0.5, 0.1 0.5,0.5", .malformedPoint("0.5,"),
             "'0.5,' is not a point: a polygon is x,y pairs separated by spaces, e.g. '0.1,0.1 0.5,0.1 0.5,0.5'"),
        ]
        for (text, expected, sentence) in cases {
            #expect(throws: expected, "\(text)") { try RegionPolygon(parsing: text) }
            #expect(expected.description == sentence)
        }
        #expect(throws: RegionError.coordinateNotFinite(point: 1, axis: "y")) {
            try RegionPolygon([Point(x: 0, y: 0), Point(x: 1, y: .infinity), Point(x: 0, y: 1)])
        }
    }

    @Test func zoneNamesFollowTheCameraNameRuleAndAreUniquePerCamera() throws {
        let square = try RegionPolygon(parsing: "0,0 0.5,0 0.5,0.5 0,0.5")
        #expect(try Zone(name: "front-door_2", polygon: square).name == "front-door_2")
        for bad in ["", "front door", "a/b", "zoné", "x\"y", String(repeating: "z", count: 65)] {
            #expect(throws: RegionError.invalidZoneName(bad)) { try Zone(name: bad, polygon: square) }
        }
        #expect(RegionError.invalidZoneName("a/b").description == "'a/b' is not a zone name: 1 to 64 of A-Z a-z 0-9 _ -")
        let door = try Zone(name: "door", polygon: square)
        #expect(throws: RegionError.duplicateZoneName("door")) { try DetectionRegions(zones: [door, door]) }
    }

    @Test func masksHideAndTheFirstZoneInOrderNamesACentre() throws {
        let left = try Zone(name: "left", polygon: RegionPolygon(parsing: "0,0 0.5,0 0.5,1 0,1"))
        let middle = try Zone(name: "middle", polygon: RegionPolygon(parsing: "0.25,0 0.75,0 0.75,1 0.25,1"))
        let regions = try DetectionRegions(masks: [RegionPolygon(parsing: "0.9,0.9 1,0.9 1,1 0.9,1")], zones: [left, middle])
        #expect(regions.zoneNames == ["left", "middle"])
        #expect(regions.zone(for: Point(x: 0.1, y: 0.5)) == "left")
        #expect(regions.zone(for: Point(x: 0.4, y: 0.5)) == "left") // in both: the first wins
        #expect(regions.zone(for: Point(x: 0.6, y: 0.5)) == "middle")
        #expect(regions.zone(for: Point(x: 0.8, y: 0.5)) == nil)
        #expect(regions.isMasked(Point(x: 0.95, y: 0.95)))
        #expect(regions.isMasked(Point(x: 0.9, y: 0.9))) // a corner
        #expect(!regions.isMasked(Point(x: 0.85, y: 0.95)))
        #expect(DetectionRegions.none.isEmpty && !regions.isEmpty)
        #expect(DetectionRegions.none.zone(for: Point(x: 0.5, y: 0.5)) == nil)
        #expect(!DetectionRegions.none.isMasked(Point(x: 0.5, y: 0.5)))
    }

    @Test func regionsEncodeAsPairsAndDecodeFromPairsOrText() throws {
        let regions = try DetectionRegions(masks: [RegionPolygon(parsing: "0.1,0.1 0.5,0.1 0.5,0.5")],
                                           zones: [Zone(name: "door", polygon: RegionPolygon(parsing: "0,0 0.25,0 0,0.25"))])
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(regions), as: UTF8.self)
        #expect(json == #"{"masks":[[[0.1,0.1],[0.5,0.1],[0.5,0.5]]],"zones":[{"name":"door","points":[[0,0],[0.25,0],[0,0.25]]}]}"#)
        #expect(try JSONDecoder().decode(DetectionRegions.self, from: Data(json.utf8)) == regions)
        let text = #"{"masks":["0.1,0.1 0.5,0.1 0.5,0.5"],"zones":[{"name":"door","points":"0,0 0.25,0 0,0.25"}]}"#
        #expect(try JSONDecoder().decode(DetectionRegions.self, from: Data(text.utf8)) == regions)
        #expect(try JSONDecoder().decode(DetectionRegions.self, from: Data("{}".utf8)) == .none)
    }

    @Test func decodingSaysWhatIsWrong() {
        let broken: [(String, String)] = [
            (#"{"masks":[[[0.1,0.1],[0.5,0.1]]]}"#, "a polygon needs at least 3 points; this one has 2"),
            (#"{"masks":[[[0.1,0.1,0.3],[0.5,0.1],[0.5,0.5]]]}"#, "a point is an [x, y] pair; one has 3 numbers"),
            (#"{"masks":["0.1,0.1 2,0.1 0.5,0.5"]}"#, "point 2's x is 2.0; coordinates are fractions of the frame, 0 to 1"),
            (#"{"zones":[{"name":"a b","points":"0,0 1,0 1,1"}]}"#, "'a b' is not a zone name: 1 to 64 of A-Z a-z 0-9 _ -"),
            (#"{"zones":[{"name":"a","points":"0,0 1,0 1,1"},{"name":"a","points":"0,0 1,0 0,1"}]}"#,
             "the zone name 'a' is used twice; each zone of a camera needs its own"),
        ]
        for (json, sentence) in broken {
            do {
                _ = try JSONDecoder().decode(DetectionRegions.self, from: Data(json.utf8))
                Issue.record("\(json) was accepted")
            } catch DecodingError.dataCorrupted(let context) {
                #expect(context.debugDescription == sentence, "\(json)")
            } catch {
                Issue.record("\(json): \(error)")
            }
        }
    }
}
