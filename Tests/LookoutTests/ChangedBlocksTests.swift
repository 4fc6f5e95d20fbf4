import Testing
@testable import Lookout

/// The motion gate's changed blocks: where something moved, as rectangles a detector searches.
@Suite struct ChangedBlocksTests {
    /// A 320x240 grey plane with a bright square at (x, y) of side `side` (nil: none).
    private func plane(square: (x: Int, y: Int, side: Int)?, pool: BufferPool) throws -> PixelBuffer {
        let (width, height) = (320, 240)
        let index = try #require(pool.acquire(capacity: width * height, wait: false))
        let pixels = pool.pointer(index).assumingMemoryBound(to: UInt8.self)
        pixels.update(repeating: 90, count: width * height)
        if let square {
            for y in square.y..<(square.y + square.side) {
                for x in square.x..<(square.x + square.side) { pixels[y * width + x] = 230 }
            }
        }
        return PixelBuffer(width: width, height: height, bytesPerRow: width, 
                           pool: pool, poolIndex: index)
    }

    @Test func theGateNamesTheBlocksThatMovedAndNoOthers() throws {
        let pool = BufferPool(count: 4)
        var gate = MotionGate(threshold: 4, samplesEveryPixel: true)
        #expect(gate.hasChanged(try plane(square: nil, pool: pool)))
        #expect(gate.changedBlocks.isEverywhere, "a first frame changed everywhere")

        #expect(gate.hasChanged(try plane(square: (x: 100, y: 64, side: 32), pool: pool)))
        let blocks = gate.changedBlocks
        #expect(!blocks.isEverywhere)
        #expect(blocks.count == 6, "a 32x32 square from x 100 touches 3 block columns and 2 rows")
        #expect(blocks.regions(margin: 0, frameWidth: 320, frameHeight: 240)
                == [Rect(x: 96, y: 64, width: 48, height: 32)], "blocks 6-8 of row 4-5: the square starts mid-block")
        #expect(blocks.regions(margin: 16, frameWidth: 320, frameHeight: 240)
                == [Rect(x: 80, y: 48, width: 80, height: 64)])

        #expect(!gate.hasChanged(try plane(square: (x: 100, y: 64, side: 32), pool: pool)), "the same again")
        #expect(gate.changedBlocks.isEmpty)
    }

    @Test func separateChangesAreSeparateRegionsUntilTheyOverlap() throws {
        let pool = BufferPool(count: 4)
        var gate = MotionGate(threshold: 4, samplesEveryPixel: true)
        _ = gate.hasChanged(try plane(square: nil, pool: pool))
        var gathered = ChangedBlocks.everywhere
        gathered.clear()
        #expect(gathered.isEmpty, "cleared before any grid: nothing changed")

        #expect(gate.hasChanged(try plane(square: (x: 0, y: 0, side: 16), pool: pool)))
        gathered.formUnion(gate.changedBlocks)
        // Back to grey: the corner block changes again; then a square far away.
        #expect(gate.hasChanged(try plane(square: (x: 256, y: 192, side: 16), pool: pool)))
        gathered.formUnion(gate.changedBlocks)
        #expect(gathered.count == 2)
        let regions = gathered.regions(margin: 0, frameWidth: 320, frameHeight: 240)
        #expect(regions.count == 2)
        #expect(regions.contains(Rect(x: 0, y: 0, width: 16, height: 16)))
        #expect(regions.contains(Rect(x: 256, y: 192, width: 16, height: 16)))
        #expect(gathered.fraction == 2.0 / 300.0)

        // Margins that make them overlap merge them into one.
        #expect(ChangedBlocks.merged([Rect(x: 0, y: 0, width: 50, height: 50), Rect(x: 40, y: 40, width: 50, height: 50),
                                      Rect(x: 200, y: 0, width: 10, height: 10)])
                == [Rect(x: 0, y: 0, width: 90, height: 90), Rect(x: 200, y: 0, width: 10, height: 10)])

        gathered.clear()
        #expect(gathered.isEmpty)
        #expect(gathered.regions(margin: 8, frameWidth: 320, frameHeight: 240).isEmpty)
    }

    @Test func halfSizePlanesGiveTheSameGridInFramePixels() throws {
        let pool = BufferPool(count: 4)
        var gate = MotionGate(threshold: 4, samplesEveryPixel: true)
        _ = gate.hasChanged(try plane(square: nil, pool: pool), reduction: 2)
        // A 16x16 square at (48, 32) of a half-size plane is a 32x32 square at (96, 64) of the frame.
        #expect(gate.hasChanged(try plane(square: (x: 48, y: 32, side: 16), pool: pool), reduction: 2))
        #expect(gate.changedBlocks.regions(margin: 0, frameWidth: 640, frameHeight: 480)
                == [Rect(x: 96, y: 64, width: 32, height: 32)])
    }
}
