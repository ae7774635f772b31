import Foundation
import Judge
import Lesson
import MIDIFile
import Notation
import Screen
import Terminal

/// `etude-bench screen`: steady playback of a generated dense piece at 120×40, 30 fps.
/// Measures frame build (PracticeScreen.render) + diff (FrameWriter.frame) per frame and the
/// bytes written per frame; prints one JSON object. Targets: median < 1 ms, < 3 KB per frame.
public func runScreenBench(arguments: [String] = []) {
    let size = TerminalSize(columns: 120, rows: 40)
    let fps = 30.0
    let seconds = arguments.first.flatMap { Double($0) } ?? 60
    let piece = DensePiece.make(seconds: seconds + 10)
    let screen = PracticeScreen(depth: .truecolor)
    var writer = FrameWriter(depth: .truecolor, synchronizedOutput: true)
    var buffer = CellBuffer(size: size)
    var times: [Double] = []
    var bytes: [Int] = []
    let frames = Int(seconds * fps)
    let clock = ContinuousClock()
    for f in 0..<frames {
        let now = Double(f) / fps
        let model = piece.model(at: now, lookahead: 3.0)
        let start = clock.now
        screen.render(model, into: &buffer, size: size)
        let out = writer.frame(buffer)
        let elapsed = clock.now - start
        if f >= 30 {  // after the first second (first frame is a full redraw)
            let c = elapsed.components
            times.append(Double(c.seconds) * 1000 + Double(c.attoseconds) / 1e15)
            bytes.append(out.count)
        }
    }
    times.sort()
    let sortedBytes = bytes.sorted()
    func pct(_ a: [Double], _ p: Double) -> Double { a.isEmpty ? 0 : a[min(a.count - 1, Int(Double(a.count) * p))] }
    func pcti(_ a: [Int], _ p: Double) -> Int { a.isEmpty ? 0 : a[min(a.count - 1, Int(Double(a.count) * p))] }
    let median = pct(times, 0.5)
    let p99 = pct(times, 0.99)
    let meanBytes = bytes.isEmpty ? 0 : Double(bytes.reduce(0, +)) / Double(bytes.count)
    let pass = median < 1.0 && meanBytes < 3072 && pcti(sortedBytes, 0.99) < 3072
    func r(_ v: Double) -> String {
        let n = Int((v * 1000).rounded())
        let frac = String(n % 1000)
        return "\(n / 1000).\(String(repeating: "0", count: 3 - frac.count))\(frac)"
    }
    print("""
    {"bench":"screen","size":"120x40","fps":30,"frames":\(times.count),"notes":\(piece.notes.count),\
    "median_ms":\(r(median)),"p99_ms":\(r(p99)),"max_ms":\(r(times.last ?? 0)),\
    "bytes_per_frame_mean":\(r(meanBytes)),"bytes_per_frame_median":\(pcti(sortedBytes, 0.5)),\
    "bytes_per_frame_p99":\(pcti(sortedBytes, 0.99)),"bytes_per_frame_max":\(sortedBytes.last ?? 0),\
    "target_median_ms":1.0,"target_bytes_per_frame":3072,"pass":\(pass)}
    """)
    runStaffBench(piece: piece, seconds: seconds, keyboardMedian: median)
}

/// The staff view over the same piece at 120×40, 30 fps: the lesson laid out and drawn once
/// (timed apart), then per frame the cursor, the sounding notes and the judgements placed and
/// the screen built and diffed. Printed beside the keyboard view's median: the same budget.
func runStaffBench(piece: DensePiece, seconds: Double, keyboardMedian: Double) {
    let size = TerminalSize(columns: 120, rows: 40)
    let fps = 30.0
    let lesson = piece.lesson()
    let clock = ContinuousClock()
    func ms(_ d: Swift.Duration) -> Double { Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15 }
    func r(_ v: Double) -> String {
        let n = Int((v * 1000).rounded())
        let frac = String(n % 1000)
        return "\(n / 1000).\(String(repeating: "0", count: 3 - frac.count))\(frac)"
    }
    var lines: [String] = []
    for view in [PracticeDisplay.staff, .both] {
        let area = StaffPracticeScreen.staffArea(size, view: view)
        let layoutStart = clock.now
        let cache = StaffCache(lesson: lesson)
        let raster = cache.raster(width: area.width, height: area.height)
        let layoutMs = ms(clock.now - layoutStart)
        let sounding = SoundingNotes(lesson: lesson)
        let screen = StaffPracticeScreen(depth: .truecolor)
        var writer = FrameWriter(depth: .truecolor, synchronizedOutput: true)
        var buffer = CellBuffer(size: size)
        var times: [Double] = []
        var bytes: [Int] = []
        var judgements: [Int: VerdictMark] = [:]
        var judgedUpTo = 0
        let ticksPerSecond = Double(lesson.ticksPerQuarter) * 2  // 120 BPM
        for f in 0..<Int(seconds * fps) {
            let now = Double(f) / fps
            let tick = Int(now * ticksPerSecond)
            let start = clock.now
            // What the session would hand over each frame: judged notes so far, the sounding ones.
            while judgedUpTo < lesson.notes.count, lesson.notes[judgedUpTo].startTick <= tick {
                judgements[judgedUpTo] = judgedUpTo % 17 == 0 ? .wrong : (judgedUpTo % 23 == 0 ? .missed : .ok)
                judgedUpTo += 1
            }
            let marks = StaffMarks(cursorTick: tick, sounding: sounding.at(tick: tick), judgements: judgements, loopBars: 5...8)
            screen.render(piece.model(at: now, lookahead: 3), staff: raster, marks: marks, view: view, into: &buffer, size: size)
            let out = writer.frame(buffer)
            let elapsed = clock.now - start
            if f >= 30 {
                times.append(ms(elapsed))
                bytes.append(out.count)
            }
        }
        times.sort()
        bytes.sort()
        func pct(_ p: Double) -> Double { times.isEmpty ? 0 : times[min(times.count - 1, Int(Double(times.count) * p))] }
        let median = pct(0.5)
        let meanBytes = bytes.isEmpty ? 0 : Double(bytes.reduce(0, +)) / Double(bytes.count)
        lines.append("""
        {"bench":"screen-staff","view":"\(view == .staff ? "staff" : "staff+keyboard")","size":"120x40","fps":30,"frames":\(times.count),\
        "notes":\(lesson.notes.count),"systems":\(raster.systems.count),"density":"\(raster.density.rawValue)",\
        "layout_once_ms":\(r(layoutMs)),"median_ms":\(r(median)),"p99_ms":\(r(pct(0.99))),"max_ms":\(r(times.last ?? 0)),\
        "keyboard_view_median_ms":\(r(keyboardMedian)),"staff_over_keyboard":\(r(keyboardMedian > 0 ? median / keyboardMedian : 0)),\
        "bytes_per_frame_mean":\(r(meanBytes)),"bytes_per_frame_p99":\(bytes.isEmpty ? 0 : bytes[min(bytes.count - 1, Int(Double(bytes.count) * 0.99))]),\
        "target_median_ms":1.0,"pass":\(median < 1.0)}
        """)
    }
    for l in lines { print(l) }
}

/// A generated dense piece: sixteenth notes in the right hand, eighth-note chords in the
/// left hand, sustained accompaniment, at 120 BPM in 4/4 — what a busy lesson looks like.
struct DensePiece {
    struct N {
        let pitch: Int
        let start: Double
        let end: Double
        let role: NoteRole
        let finger: Int
    }

    let notes: [N]
    let beat = 0.5  // seconds per beat at 120 BPM

    static func make(seconds: Double) -> DensePiece {
        var notes: [N] = []
        var seed: UInt64 = 0x2545F4914F6CDD1D
        func next(_ n: Int) -> Int {
            seed ^= seed << 13
            seed ^= seed >> 7
            seed ^= seed << 17
            return Int(seed % UInt64(n))
        }
        let scale = [0, 2, 4, 5, 7, 9, 11]
        var t = 0.0
        var degree = 14
        while t < seconds {
            degree = max(7, min(24, degree + [-2, -1, 1, 2, 1, -1][next(6)]))
            let pitch = 60 + (degree / 7 - 1) * 12 + scale[degree % 7]
            notes.append(N(pitch: pitch, start: t, end: t + 0.118, role: .rightHand, finger: 1 + next(5)))
            t += 0.125
        }
        t = 0
        while t < seconds {
            let root = [36, 41, 43, 38][Int(t / 2) % 4]
            for p in [root, root + 7, root + 12] {
                notes.append(N(pitch: p, start: t, end: t + 0.24, role: .leftHand, finger: 5 - (p - root) / 4))
            }
            t += 0.25
        }
        t = 0
        while t < seconds {
            for p in [76, 79, 84] { notes.append(N(pitch: p, start: t, end: t + 1.9, role: .accompaniment, finger: 0)) }
            t += 2
        }
        notes.sort { $0.start < $1.start }
        return DensePiece(notes: notes)
    }

    /// The piece as a two-hand lesson (the accompaniment on a third track), 120 BPM in 4/4.
    func lesson() -> Lesson {
        let tpq = 480
        func ticks(_ s: Double) -> Int { Int((s / beat * Double(tpq)).rounded()) }
        var tracks: [Track] = []
        for (name, role, channel) in [("Right Hand", NoteRole.rightHand, UInt8(0)), ("Left Hand", .leftHand, 1), ("Strings", .accompaniment, 2)] {
            var events = [MIDIEvent(tick: 0, .meta(type: MetaType.trackName, data: Array(name.utf8)))]
            if channel == 2 { events.append(MIDIEvent(tick: 0, .programChange(channel: 2, program: 48))) }
            for n in notes where n.role == role {
                if n.finger > 0 { events.append(Fingering.event(tick: ticks(n.start), pitch: n.pitch, finger: n.finger)) }
                events.append(MIDIEvent(tick: ticks(n.start), .noteOn(channel: channel, key: UInt8(n.pitch), velocity: 80)))
                events.append(MIDIEvent(tick: ticks(n.end), .noteOff(channel: channel, key: UInt8(n.pitch), velocity: 0)))
            }
            events = events.enumerated().sorted { a, b in
                a.element.tick != b.element.tick ? a.element.tick < b.element.tick : a.offset < b.offset
            }.map(\.element)
            tracks.append(Track(events: events))
        }
        let conductor = Track(events: [
            MIDIEvent(tick: 0, .meta(type: MetaType.timeSignature, data: TimeSignature(numerator: 4, denominatorPower: 2).bytes)),
            MIDIEvent(tick: 0, .meta(type: MetaType.tempo, data: [0x07, 0xA1, 0x20])),
        ])
        return Lesson(file: MIDIFile(format: 1, division: .ticksPerQuarter(tpq), tracks: [conductor] + tracks), fileName: "dense.mid")
    }

    func model(at now: Double, lookahead: Double) -> ScreenModel {
        var keyboard = KeyboardState()
        var falling: [FallingNote] = []
        for n in notes where n.end > now - 0.1 && n.start < now + lookahead {
            if n.start <= now && n.end > now { keyboard.light(n.pitch, n.role) }
            falling.append(FallingNote(pitch: n.pitch, start: n.start - now, end: n.end - now, role: n.role,
                                       finger: n.finger > 0 ? n.finger : nil))
        }
        let barSeconds = beat * 4
        let bar = Int(now / barSeconds)
        var lines: [BarLine] = []
        var b = bar + 1
        while Double(b) * barSeconds < now + lookahead {
            lines.append(BarLine(seconds: Double(b) * barSeconds - now, bar: b + 1))
            b += 1
        }
        let totalBars = Int((notes.last?.end ?? 0) / barSeconds) + 1
        let beatInBar = Int((now - Double(bar) * barSeconds) / beat) + 1
        return ScreenModel(
            status: StatusInfo(title: "Dense étude (generated)", playing: true, bar: bar + 1, beat: beatInBar, bars: totalBars,
                               bpm: 120, tempoPercent: 100, hand: "both", otherHand: "play",
                               loop: LoopStatus(startBar: 5, endBar: 8, enabled: false), metronome: true, mode: "watch"),
            timeline: TimelineInfo(position: now / barSeconds, length: Double(totalBars), loopStart: 4, loopEnd: 8, loopEnabled: false),
            keyboard: keyboard, notes: falling, barLines: lines, lookaheadSeconds: lookahead,
            pitchRange: 36...88, showFingers: true)
    }
}
