import Testing
@testable import Lookout

/// One rule for a part of the frame given in fractions (the option, the file and the library).
@Suite("Rect of interest rule")
struct RectOfInterestRuleTests {
    @Test func aRectInFractionsMustBeNonEmptyAndWithinTheFrame() {
        #expect(Rect(fractionsOfFrame: 0.25, 0.25, 0.5, 0.5) == Rect(x: 0.25, y: 0.25, width: 0.5, height: 0.5))
        // Fractions whose sum rounds to a hair over 1: allowed.
        #expect(Rect(fractionsOfFrame: 0.1 + 0.2, 0, 0.7, 1) != nil)
        #expect(Rect(fractionsOfFrame: 0.5, 0, 0.51, 1) == nil, "past the right edge")
        #expect(Rect(fractionsOfFrame: 0, 0, 0, 1) == nil, "empty")
        #expect(Rect(fractionsOfFrame: -0.1, 0, 0.5, 0.5) == nil, "outside")
    }
}
