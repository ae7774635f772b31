import Foundation
import Testing
import Terminal
@testable import Screen

/// A terminal for tests: fixed (changeable) size, captured output, scripted input.
final class FakeTerminal: TerminalDevice, @unchecked Sendable {
    enum Step {
        case bytes(String)
        case event(TerminalEvents, TerminalSize?)
        /// Nothing arrives: the read waits out its timeout (as a real terminal would).
        case idle
    }

    var fixedSize: TerminalSize
    var script: [Step]
    var writes: [[UInt8]] = []
    private var pending: TerminalEvents = []

    init(size: TerminalSize, script: [Step]) {
        fixedSize = size
        self.script = script
    }

    func size() -> TerminalSize { fixedSize }
    func write(_ bytes: [UInt8]) { writes.append(bytes) }

    func readInput(timeoutMilliseconds: Int32) -> [UInt8] {
        guard !script.isEmpty else {
            pending.insert(.inputClosed)
            return []
        }
        switch script.removeFirst() {
        case .bytes(let s): return Array(s.utf8)
        case .event(let e, let newSize):
            pending.insert(e)
            if let newSize { fixedSize = newSize }
            return []
        case .idle:
            usleep(useconds_t(max(0, timeoutMilliseconds)) * 1000)
            return []
        }
    }

    func takeEvents() -> TerminalEvents {
        defer { pending = [] }
        return pending
    }

    var output: String { String(decoding: writes.joined(), as: UTF8.self) }
    static let clear = "\u{1B}[2J"
}

/// A full screen for the host's tests: draws the practice screen from `model`, records what
/// the host asked of it.
final class TestScreen: FullScreen {
    let screen: PracticeScreen
    var model: () -> ScreenModel
    var onKey: (Key) throws -> TerminalAction
    var onIdle: () -> TerminalAction = { .continue }
    var areas: [Rect] = []
    var fitting: [Bool] = []
    var closed = 0

    init(depth: ColorDepth = .ansi16, model: @escaping () -> ScreenModel = { Fixture.model() },
         key: @escaping (Key) throws -> TerminalAction = { $0 == Key("q") ? .quit : .continue }) {
        screen = PracticeScreen(depth: depth)
        self.model = model
        onKey = key
    }

    var minimumSize: TerminalSize { PracticeScreen.minimumSize }
    func render(into area: Rect, buffer: inout CellBuffer) {
        areas.append(area)
        screen.render(model(), into: area, buffer: &buffer)
    }
    func key(_ key: Key) throws -> TerminalAction { try onKey(key) }
    func idle() -> TerminalAction { onIdle() }
    func willDraw(fits: Bool) { fitting.append(fits) }
    func close() { closed += 1 }
}

struct Refused: Error {}

/// The one screen host every full screen runs on (`ScreenHost`), on a fake terminal: keys,
/// Ctrl-C, the terminal going away, resizes, the too-small prelude, errors, `stop()`. Real
/// signals (SIGTERM, SIGINT, SIGHUP, SIGWINCH) on a real pseudo-terminal are
/// `PseudoTerminalTests` (TerminalTests), through `etude-tty-probe screen`.
@Suite("ScreenHost", .serialized)
struct ScreenHostTests {
    let size = TerminalSize(columns: 80, rows: 24)

    func host(_ term: FakeTerminal, depth: ColorDepth = .ansi16, fps: Double = 30, signals: SignalWatch? = nil,
              _ screen: TestScreen) throws -> ScreenEnd {
        try ScreenHost.run(device: term, depth: depth, signals: signals, fps: fps) { _ in screen }
    }

    @Test func deliversKeysInOrderAndQuits() throws {
        let term = FakeTerminal(size: size, script: [.bytes(" \u{1B}[C"), .bytes("-"), .bytes("q"), .bytes("x")])
        var keys: [Key] = []
        let screen = TestScreen(key: { key in
            keys.append(key)
            return key == Key("q") ? .quit : .continue
        })
        let end = try host(term, screen)
        #expect(end == ScreenEnd(ending: .quit))
        #expect(end.exitStatus == 0)
        #expect(keys == [Key(" "), Key(.right), Key("-"), Key("q")], "x after q is never read")
        #expect(term.output.hasPrefix("\u{1B}[?2026h\u{1B}[0m\u{1B}[H\u{1B}[2J"), "first frame is a full redraw")
        #expect(term.output.contains("Minuet in G"))
        #expect(screen.closed == 1, "closed once, before the terminal is restored")
    }

    @Test func ctrlCInterruptsWithoutReachingTheHandler() throws {
        let term = FakeTerminal(size: size, script: [.bytes("a\u{03}b")])
        var keys: [Key] = []
        let screen = TestScreen(model: { ScreenModel() }, key: { keys.append($0); return .continue })
        let end = try host(term, screen)
        #expect(end.ending == .interrupted)
        #expect(end.exitStatus == 130)
        #expect(keys == [Key("a")])
        #expect(screen.closed == 1)
    }

    @Test func endsWhenInputCloses() throws {
        let screen = TestScreen(model: { ScreenModel() }, key: { _ in .continue })
        #expect(try host(FakeTerminal(size: size, script: []), screen).ending == .inputClosed)
    }

    /// SIGWINCH reaches the host as a resize: everything is redrawn, at the new size.
    @Test(arguments: [TerminalSize(columns: 60, rows: 20), TerminalSize(columns: 80, rows: 24), TerminalSize(columns: 200, rows: 50)])
    func resizeRedrawsEverythingAtTheNewSize(_ newSize: TerminalSize) throws {
        let term = FakeTerminal(size: TerminalSize(columns: 100, rows: 30),
                                script: [.event(.resized, newSize), .event(.resumed, nil), .bytes("q")])
        let screen = TestScreen()
        _ = try host(term, screen)
        let clears = term.output.components(separatedBy: FakeTerminal.clear).count - 1
        #expect(clears == 3, "initial frame, after the resize, after the resume")
        #expect(screen.areas.first == Rect(x: 0, y: 0, width: 100, height: 30))
        #expect(screen.areas.last == Rect(size: newSize), "drawn into the whole new terminal")
        // What the terminal shows is the screen's frame at the new size (the footer on its last row).
        var shown = VirtualScreen(size: newSize)
        for w in term.writes.suffix(2) { shown.feed(w) }
        let rows = shown.text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(rows.count == newSize.rows)
        #expect(rows[newSize.rows - 1].contains("q quit"), "\(shown.text)")
        #expect(rows[0].contains("Minuet in G"))
    }

    @Test func tooSmallThenEnlargedResumesDrawing() throws {
        let term = FakeTerminal(size: TerminalSize(columns: 40, rows: 10), script: [.event(.resized, size), .bytes("q")])
        let screen = TestScreen()
        _ = try host(term, screen)
        #expect(String(decoding: term.writes[0], as: UTF8.self).contains("too small"))
        #expect(term.output.contains("Minuet in G"))
        #expect(screen.fitting.first == false && screen.fitting.last == true, "told whether it fits before each frame")
        #expect(screen.areas.allSatisfy { $0.fits(PracticeScreen.minimumSize) }, "never asked to draw below its minimum")
    }

    @Test func unchangedModelWritesNothingBetweenFrames() throws {
        let term = FakeTerminal(size: size, script: [.idle, .idle, .idle, .bytes("q")])
        _ = try host(term, depth: .truecolor, fps: 200, TestScreen())
        #expect(term.writes.count == 1, "only the first frame was written")
    }

    @Test func loneEscapeIsDeliveredAfterTheTimeout() throws {
        let term = FakeTerminal(size: size, script: [.bytes("\u{1B}"), .idle, .idle, .bytes("q")])
        var keys: [Key] = []
        _ = try host(term, TestScreen(model: { ScreenModel() }, key: { keys.append($0); return $0 == Key("q") ? .quit : .continue }))
        #expect(keys == [Key(.escape), Key("q")])
    }

    @Test func anErrorFromAKeyEndsTheScreenAndIsRethrownAfterItCloses() throws {
        let term = FakeTerminal(size: size, script: [.bytes("a"), .bytes("b")])
        let screen = TestScreen(key: { key in
            if key == Key("a") { throw Refused() }
            return .continue
        })
        #expect(throws: Refused.self) { try host(term, screen) }
        #expect(screen.closed == 1)
        #expect(term.script.count == 1, "nothing read after the failing key")
    }

    @Test func stopFromAnotherThreadEndsTheScreen() throws {
        let term = FakeTerminal(size: size, script: Array(repeating: .idle, count: 500))
        let screen = TestScreen()
        var host: ScreenHost?
        screen.onIdle = {
            if let host { Thread { host.stop() }.start() }
            host = nil
            return .continue
        }
        let end = try ScreenHost.run(device: term, depth: .ansi16, fps: 100) { made in
            host = made
            return screen
        }
        #expect(end.ending == .stopped)
        #expect(screen.closed == 1)
    }
}
