// A tiny full-screen program for the pseudo-terminal tests.
//
// `etude-tty-probe` opens a TerminalSession, says READY, echoes decoded keys, and ends the way
// the test asks: `q` exits 0, `t` throws an error out of the session (exit 3), Ctrl-Z suspends;
// signals are sent by the test itself.
//
// `etude-tty-probe screen` runs a toy practice screen on the `ScreenHost` over a toy transport
// (240 BPM, 4/4): the screen a practice session shows, driven by real keys: `-`/`+` tempo,
// `[`/`]` loop at the current bar, `l` loop on/off, `?` help, `q` quit. It ends with the host's
// exit status (128 + a caught signal, 130 for Ctrl-C).
import Screen
import Terminal
#if canImport(Glibc)
import Glibc
import FrontEnd
#endif

struct ProbeFailure: Error {}

func say(_ s: TerminalSession, _ text: String) { s.write(Array((text + "\r\n").utf8)) }

func echoMode(_ session: TerminalSession) throws {
    say(session, "READY")
    var decoder = KeyDecoder()
    while true {
        let bytes = session.readInput(timeoutMilliseconds: 50)
        let events = session.takeEvents()
        if events.contains(.resumed) { say(session, "RESUMED") }
        if events.contains(.inputClosed) { return }
        var keys = decoder.feed(bytes)
        if bytes.isEmpty && decoder.hasPending { keys += decoder.flush() }
        for key in keys {
            say(session, "KEY \(key)")
            if key == Key("q") { return }
            if key == Key("t") { throw ProbeFailure() }
            if key == Key.ctrl("z") { session.suspend() }
        }
    }
}

/// A stand-in for the lesson transport: position advances with the clock at the tempo.
struct ToyTransport {
    var beats = 0.0
    var tempoPercent = 100
    var loopStart: Int?
    var loopEnd: Int?
    var loopOn = false
    var help = false
    var last = ContinuousClock.now
    let bpm = 240.0
    let bars = 16

    var bar: Int { Int(beats / 4) + 1 }

    mutating func advance() {
        let now = ContinuousClock.now
        let dt = now - last
        last = now
        let c = dt.components
        let seconds = Double(c.seconds) + Double(c.attoseconds) / 1e18
        beats += seconds * bpm * Double(tempoPercent) / 100 / 60
        if loopOn, let a = loopStart, let b = loopEnd, bar > b { beats = Double(a - 1) * 4 }
        if bar > bars { beats = 0 }
    }

    func model() -> ScreenModel {
        let rate = bpm * Double(tempoPercent) / 100 / 60  // beats per second
        var notes: [FallingNote] = []
        var keyboard = KeyboardState()
        for i in 0..<24 {
            let beat = floor(beats) + Double(i) - 2
            let pitch = 60 + [0, 4, 7, 12, 7, 4][Int(beat.truncatingRemainder(dividingBy: 6) + 6) % 6]
            let start = (beat - beats) / rate
            let end = start + 0.9 / rate
            if start <= 0 && end > 0 { keyboard.light(pitch, .rightHand) }
            notes.append(FallingNote(pitch: pitch, start: start, end: end, role: .rightHand))
        }
        return ScreenModel(
            status: StatusInfo(title: "Probe étude", playing: true, bar: bar, beat: Int(beats) % 4 + 1, bars: bars,
                               bpm: bpm * Double(tempoPercent) / 100, tempoPercent: tempoPercent, hand: "right", otherHand: "play",
                               loop: loopStart.map { LoopStatus(startBar: $0, endBar: loopEnd ?? $0, enabled: loopOn) },
                               metronome: false, mode: "watch"),
            timeline: TimelineInfo(position: beats / 4, length: Double(bars), loopStart: loopStart.map { Double($0 - 1) },
                                   loopEnd: loopEnd.map { Double($0) }, loopEnabled: loopOn),
            keyboard: keyboard, notes: notes, lookaheadSeconds: 3, pitchRange: 48...84,
            overlay: help ? .help : nil)
    }
}

/// The toy transport as a full screen on the host.
final class ToyScreen: FullScreen {
    var transport = ToyTransport()
    let screen: PracticeScreen
    init(depth: ColorDepth) { screen = PracticeScreen(depth: depth) }

    var minimumSize: TerminalSize { PracticeScreen.minimumSize }

    func render(into area: Rect, buffer: inout CellBuffer) {
        transport.advance()
        screen.render(transport.model(), into: area, buffer: &buffer)
    }

    func key(_ key: Key) -> TerminalAction {
        if transport.help { transport.help = false; return .continue }
        switch PracticeKeyMap.command(for: key) {
        case .quit: return .quit
        case .tempoDown: transport.tempoPercent = max(25, transport.tempoPercent - 5)
        case .tempoUp: transport.tempoPercent = min(200, transport.tempoPercent + 5)
        case .loopStartHere: transport.loopStart = transport.bar; transport.loopOn = true
        case .loopEndHere: transport.loopEnd = max(transport.bar, transport.loopStart ?? 1); transport.loopOn = true
        case .toggleLoop: transport.loopOn.toggle()
        case .toggleHelp: transport.help = true
        default: break
        }
        return .continue
    }
}

do {
    let mode = CommandLine.arguments.dropFirst().first ?? "echo"
    if mode == "screen" {
        let end = try ScreenHost.run { host in ToyScreen(depth: host.depth) }
        exit(end.exitStatus)
    }
    try TerminalSession.run { session in try echoMode(session) }
    exit(0)
} catch let error as TerminalError {
    FileHandleless.stderr("etude-tty-probe: \(error)")
    exit(2)
} catch {
    FileHandleless.stderr("etude-tty-probe: error thrown out of the session")
    exit(3)
}

enum FileHandleless {
    static func stderr(_ text: String) {
        let bytes = Array((text + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }
}
