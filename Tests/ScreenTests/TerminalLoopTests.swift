import Foundation
import Testing
import Terminal

/// The one key/frame loop (`TerminalLoop`) and its key reader (`KeyInput`), which the practice
/// screen, the browser, calibration and the one-line players all read keys through.
@Suite("TerminalLoop and KeyInput")
struct TerminalLoopTests {
    let size = TerminalSize(columns: 80, rows: 24)

    @Test func ctrlCEndsAfterTheKeysBeforeIt() {
        let input = KeyInput(device: FakeTerminal(size: size, script: [.bytes("ab\u{03}c")]))
        let got = input.poll(timeoutMs: 0)
        #expect(got.keys == [Key("a"), Key("b")])
        #expect(got.ending == .interrupted)
    }

    @Test func ctrlZIsTakenOutAndRedrawsEverything() {
        // A fake terminal cannot stop the process: the loop goes on as after `fg`.
        let input = KeyInput(device: FakeTerminal(size: size, script: [.bytes("a\u{1A}b")]))
        let got = input.poll(timeoutMs: 0)
        #expect(got.keys == [Key("a"), Key("b")])
        #expect(got.events.contains(.resumed))
        #expect(got.ending == nil)
    }

    @Test func aLoneEscapeWaitsForItsTimeoutThenIsEsc() {
        let input = KeyInput(device: FakeTerminal(size: size, script: [.bytes("\u{1B}"), .idle, .idle]))
        #expect(input.poll(timeoutMs: 1000).keys.isEmpty, "held back: it may start a sequence")
        let started = ContinuousClock.now
        var keys = input.poll(timeoutMs: 1000).keys
        if keys.isEmpty { keys = input.poll(timeoutMs: 1000).keys }
        #expect(keys == [Key(.escape)])
        #expect(ContinuousClock.now - started < .milliseconds(900), "the wait was cut to the Esc timeout")
    }

    @Test func aPasteArrivesWholeAndIsNeverSplitByTheTimeout() {
        let input = KeyInput(device: FakeTerminal(size: size, script: [
            .bytes("\u{1B}[200~q "), .idle, .bytes("x\u{1B}[201~"),
        ]))
        #expect(input.poll(timeoutMs: 10).keys.isEmpty)
        #expect(input.poll(timeoutMs: 40).keys.isEmpty, "an unfinished paste outlives the Esc timeout")
        let got = input.poll(timeoutMs: 10)
        #expect(got.keys == [Key(.paste("q x"))])
        #expect(got.keys.allSatisfy { $0.isPaste })
    }

    @Test func signalsAndHangUpsEndWithTheirReason() {
        let signalled = KeyInput(device: FakeTerminal(size: size, script: [.event(.signalled, nil)]))
        #expect(signalled.poll(timeoutMs: 0).ending == .signalled)
        let closed = KeyInput(device: FakeTerminal(size: size, script: []))
        #expect(closed.poll(timeoutMs: 0).ending == .inputClosed)
    }

    @Test func resizeRedrawsTheWholeFrame() {
        let bigger = TerminalSize(columns: 100, rows: 30)
        let term = FakeTerminal(size: size, script: [.event(.resized, bigger), .bytes("q")])
        let loop = TerminalLoop(device: term, depth: .ansi16)
        var sizes: [TerminalSize] = []
        let end = loop.run(frame: { buffer, size in
            sizes.append(size)
            buffer.reset(size: size)
        }, onKey: { $0 == Key("q") ? .quit : .continue })
        #expect(end == .quit)
        #expect(sizes.first == size && sizes.contains(bigger))
        #expect(term.output.components(separatedBy: FakeTerminal.clear).count - 1 == 2, "the first frame and after the resize")
    }

    @Test func idleRunsEveryTurnAndCanQuit() {
        let term = FakeTerminal(size: size, script: [.idle, .idle, .idle, .idle, .idle])
        let loop = TerminalLoop(device: term, depth: .ansi16, fps: 200)
        var turns = 0
        let end = loop.run(frame: { _, _ in }, onKey: { _ in .continue }, onIdle: {
            turns += 1
            return turns == 3 ? .quit : .continue
        })
        #expect(end == .quit && turns == 3)
    }

    @Test func wakeCutsTheWaitShortOfTheNextFrame() {
        // One frame a second, but something is due in 5 ms: the wait ends in time for it.
        final class Waits: TerminalDevice {
            var asked: [Int32] = []
            func size() -> TerminalSize { TerminalSize(columns: 80, rows: 24) }
            func write(_ bytes: [UInt8]) {}
            func readInput(timeoutMilliseconds: Int32) -> [UInt8] {
                asked.append(timeoutMilliseconds)
                return asked.count < 3 ? [] : Array("q".utf8)
            }
            func takeEvents() -> TerminalEvents { [] }
        }
        let term = Waits()
        let loop = TerminalLoop(device: term, depth: .ansi16, fps: 1)
        _ = loop.run(frame: { _, _ in }, onKey: { $0 == Key("q") ? .quit : .continue }, wake: { 0.005 })
        #expect(term.asked.allSatisfy { $0 <= 5 }, "\(term.asked)")
    }

    @Test func stopFromAnotherThreadEndsTheLoop() {
        let term = FakeTerminal(size: size, script: Array(repeating: .idle, count: 10_000))
        let loop = TerminalLoop(device: term, depth: .ansi16, fps: 100)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { loop.stop() }
        #expect(loop.run(frame: { _, _ in }, onKey: { _ in .continue }) == .stopped)
    }
}
