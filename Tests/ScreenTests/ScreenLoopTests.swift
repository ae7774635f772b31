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

@Suite("ScreenLoop")
struct ScreenLoopTests {
    let size = TerminalSize(columns: 80, rows: 24)

    @Test func deliversKeysInOrderAndQuits() {
        let term = FakeTerminal(size: size, script: [.bytes(" \u{1B}[C"), .bytes("-"), .bytes("q"), .bytes("x")])
        let loop = ScreenLoop(device: term, depth: .ansi16, fps: 30)
        var keys: [Key] = []
        let end = loop.run(model: { Fixture.model() }) { key in
            keys.append(key)
            return key == Key("q") ? .quit : .continue
        }
        #expect(end == .quit)
        #expect(keys == [Key(" "), Key(.right), Key("-"), Key("q")], "x after q is never read")
        #expect(term.output.hasPrefix("\u{1B}[?2026h\u{1B}[0m\u{1B}[H\u{1B}[2J"), "first frame is a full redraw")
        #expect(term.output.contains("Minuet in G"))
    }

    @Test func ctrlCInterruptsWithoutReachingTheHandler() {
        let term = FakeTerminal(size: size, script: [.bytes("a\u{03}b")])
        let loop = ScreenLoop(device: term, depth: .ansi16)
        var keys: [Key] = []
        let end = loop.run(model: { ScreenModel() }) { keys.append($0); return .continue }
        #expect(end == .interrupted)
        #expect(keys == [Key("a")])
    }

    @Test func endsWhenInputCloses() {
        let term = FakeTerminal(size: size, script: [])
        let loop = ScreenLoop(device: term, depth: .ansi16)
        #expect(loop.run(model: { ScreenModel() }) { _ in .continue } == .inputClosed)
    }

    @Test func resizeAndResumeRedrawEverything() {
        let bigger = TerminalSize(columns: 100, rows: 30)
        let term = FakeTerminal(size: size, script: [.event(.resized, bigger), .event(.resumed, nil), .bytes("q")])
        let loop = ScreenLoop(device: term, depth: .ansi16)
        _ = loop.run(model: { Fixture.model() }) { $0 == Key("q") ? .quit : .continue }
        let clears = term.output.components(separatedBy: FakeTerminal.clear).count - 1
        #expect(clears == 3, "initial frame, after the resize, after the resume")
    }

    @Test func tooSmallThenEnlargedResumesDrawing() {
        let term = FakeTerminal(size: TerminalSize(columns: 40, rows: 10), script: [.event(.resized, size), .bytes("q")])
        let loop = ScreenLoop(device: term, depth: .ansi16)
        _ = loop.run(model: { Fixture.model() }) { $0 == Key("q") ? .quit : .continue }
        #expect(String(decoding: term.writes[0], as: UTF8.self).contains("too small"))
        #expect(term.output.contains("Minuet in G"))
    }

    @Test func unchangedModelWritesNothingBetweenFrames() {
        let term = FakeTerminal(size: size, script: [.idle, .idle, .idle, .bytes("q")])
        let loop = ScreenLoop(device: term, depth: .truecolor, fps: 200)
        _ = loop.run(model: { Fixture.model() }) { $0 == Key("q") ? .quit : .continue }
        #expect(term.writes.count == 1, "only the first frame was written")
    }

    @Test func loneEscapeIsDeliveredAfterTheTimeout() {
        let term = FakeTerminal(size: size, script: [.bytes("\u{1B}"), .idle, .idle, .bytes("q")])
        let loop = ScreenLoop(device: term, depth: .ansi16)
        var keys: [Key] = []
        _ = loop.run(model: { ScreenModel() }) { keys.append($0); return $0 == Key("q") ? .quit : .continue }
        #expect(keys == [Key(.escape), Key("q")])
    }

    @Test func runsOnItsOwnThread() {
        let term = FakeTerminal(size: size, script: [.bytes("q")])
        let loop = ScreenLoop(device: term, depth: .ansi16)
        loop.start(model: { ScreenModel() }) { $0 == Key("q") ? .quit : .continue }
        #expect(loop.wait() == .quit)
    }
}
