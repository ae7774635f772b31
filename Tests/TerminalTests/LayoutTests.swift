import Testing
import Terminal

/// The layout helper every screen splits its area with (`Layout`, ratatui's), and `Rect`.
@Suite("Layout")
struct LayoutTests {
    let screen = Rect(x: 0, y: 0, width: 80, height: 24)

    @Test func thePracticeScreensRowsTileTheArea() {
        let rows = Layout.vertical([.length(2), .length(1), .fill(1), .length(4), .length(1)]).split(screen)
        #expect(rows.map(\.height) == [2, 1, 16, 4, 1])
        #expect(rows.map(\.y) == [0, 2, 3, 19, 23])
        #expect(rows.allSatisfy { $0.x == 0 && $0.width == 80 })
    }

    @Test(arguments: [(60, 20), (80, 24), (200, 50), (1, 1), (0, 0)])
    func partsAlwaysTileTheWholeArea(_ width: Int, _ height: Int) {
        let area = Rect(x: 3, y: 5, width: width, height: height)
        for layout in [Layout.vertical([.length(2), .percentage(25), .min(3), .fill(2), .fill(1)]),
                       Layout.horizontal([.length(10), .fill(1), .percentage(50), .length(7)])] {
            let parts = layout.split(area)
            let along = layout.direction == .vertical ? parts.map(\.height) : parts.map(\.width)
            #expect(along.reduce(0, +) == (layout.direction == .vertical ? area.height : area.width), "a fill takes the rest")
            #expect(along.allSatisfy { $0 >= 0 })
            // Each part starts where the one before ended.
            var at = layout.direction == .vertical ? area.y : area.x
            for p in parts {
                #expect((layout.direction == .vertical ? p.y : p.x) == at)
                at += layout.direction == .vertical ? p.height : p.width
            }
        }
    }

    @Test func fillsShareWhatIsLeftByWeightTheRemainderFirst() {
        #expect(Layout.horizontal([.length(10), .fill(1), .fill(2)]).sizes(41) == [10, 11, 20])
        #expect(Layout.horizontal([.fill(1), .fill(1), .fill(1)]).sizes(10) == [4, 3, 3])
        #expect(Layout.horizontal([.percentage(50), .fill(1)]).sizes(81) == [40, 41])
    }

    @Test func minTakesItsMinimumThenAShare() {
        #expect(Layout.vertical([.min(5), .fill(1)]).sizes(25) == [15, 10])
        #expect(Layout.vertical([.min(5), .length(30)]).sizes(20) == [5, 15], "a length after a min gets what the minimum leaves")
    }

    @Test func fixedPartsThatDoNotFitShrinkTheLaterOnes() {
        #expect(Layout.vertical([.length(2), .length(1), .fill(1), .length(4), .length(1)]).sizes(5) == [2, 1, 0, 2, 0])
        #expect(Layout.vertical([.length(8), .length(8)]).sizes(0) == [0, 0])
        #expect(Layout.vertical([.length(-3), .percentage(400), .fill(-1)]).sizes(10) == [0, 10, 0], "nonsense is clamped, never negative")
    }

    @Test func horizontalSplitKeepsTheRows() {
        let parts = Layout.horizontal([.length(20), .fill(1)]).split(Rect(x: 2, y: 4, width: 60, height: 3))
        #expect(parts == [Rect(x: 2, y: 4, width: 20, height: 3), Rect(x: 22, y: 4, width: 40, height: 3)])
    }

    @Test func rectHelpers() {
        #expect(Rect(x: 0, y: 0, width: -4, height: 2).width == 0, "never negative")
        #expect(screen.row(23) == Rect(x: 0, y: 23, width: 80, height: 1))
        #expect(screen.rows(from: 3) == Rect(x: 0, y: 3, width: 80, height: 21))
        #expect(screen.inset(horizontal: 1, vertical: 2) == Rect(x: 1, y: 2, width: 78, height: 20))
        #expect(screen.centred(width: 20, height: 4) == Rect(x: 30, y: 10, width: 20, height: 4))
        #expect(screen.centred(width: 200, height: 40) == screen)
        #expect(screen.fits(TerminalSize(columns: 60, rows: 16)))
        #expect(!Rect(x: 0, y: 0, width: 59, height: 30).fits(TerminalSize(columns: 60, rows: 16)))
    }
}
