import Foundation
import MIDIFile
import Store
import Testing
import TestSupport

/// Generated performances of one small lesson marked p then f (ABC `!p!`/`!f!`), judged by the
/// ear: through `etude judge` on a .mid, and through play mode on a FIFO, each verdict counted.
enum EarPerformance: String, CaseIterable {
    case exact, short, pedalled, reversed, semitone

    /// Two bars of quarter notes at ♩=120: C D E F (p), G F E D (f).
    static let lesson = "X:1\nT:Ear Test\nM:4/4\nL:1/4\nQ:1/4=120\nK:C\n!p! C D E F | !f! G F E D |]\n"
    static let pitches: [UInt8] = [60, 62, 64, 65, 67, 65, 64, 62]

    /// The performance as (seconds from its first note, MIDI bytes), in time order:
    /// - exact: each note held 95 % of its value, p at velocity 50, f at 100 (this learner's own curve);
    /// - short: released at 40 % of each value;
    /// - pedalled: released at 40 %, under the sustain pedal changed at the bar lines;
    /// - reversed: p and f swapped;
    /// - semitone: the third note a semitone high.
    var events: [(time: Double, bytes: [UInt8])] {
        var out: [(time: Double, bytes: [UInt8])] = []
        let held = self == .short || self == .pedalled ? 0.4 : 0.95
        for (i, p) in Self.pitches.enumerated() {
            let t = Double(i) * 0.5
            let pitch = self == .semitone && i == 2 ? p + 1 : p
            let loud = (i >= 4) != (self == .reversed)
            out.append((t, [0x90, pitch, loud ? 100 : 50]))
            out.append((t + 0.5 * held, [0x80, pitch, 0]))
        }
        if self == .pedalled {
            out.append((0.01, [0xB0, 64, 127]))
            for bar in [2.0, 4.0] {
                out.append((bar + 0.02, [0xB0, 64, 0]))
                out.append((bar + 0.05, [0xB0, 64, 127]))
            }
        }
        return out.sorted { $0.time < $1.time }
    }

    /// The performance as a .mid (♩=120, 480 ticks a quarter), starting 1 s in.
    var midi: [UInt8] {
        var track: [MIDIEvent] = [MIDIEvent(tick: 0, .meta(type: MetaType.tempo, data: [0x07, 0xA1, 0x20]))]
        for e in events {
            let tick = Int(((e.time + 1) * 960).rounded())
            let kind: MIDIEvent.Kind = switch e.bytes[0] {
            case 0x90: .noteOn(channel: 0, key: e.bytes[1], velocity: e.bytes[2])
            case 0x80: .noteOff(channel: 0, key: e.bytes[1], velocity: 0)
            default: .controlChange(channel: 0, controller: e.bytes[1], value: e.bytes[2])
            }
            track.append(MIDIEvent(tick: tick, kind))
        }
        track.append(MIDIEvent(tick: (track.last?.tick ?? 0) + 10, .meta(type: MetaType.endOfTrack, data: [])))
        return MIDIWriter.write(MIDIFile(format: 0, division: .ticksPerQuarter(480), tracks: [Track(events: track)]))
    }

    /// What the ear must count: (hit, missed, wrong, short, long, loud, soft).
    var counts: [String: Int] {
        switch self {
        case .exact: return ["hit": 8, "missed": 0, "wrong": 0, "short": 0, "long": 0, "loud": 0, "soft": 0]
        case .short: return ["hit": 8, "missed": 0, "wrong": 0, "short": 8, "long": 0, "loud": 0, "soft": 0]
        case .pedalled: return ["hit": 8, "missed": 0, "wrong": 0, "short": 0, "long": 0, "loud": 0, "soft": 0]
        case .reversed: return ["hit": 8, "missed": 0, "wrong": 0, "short": 0, "long": 0, "loud": 4, "soft": 4]
        // The wrong key is wrong, not also missed, and not also an extra.
        case .semitone: return ["hit": 7, "missed": 0, "wrong": 1, "extra": 0, "short": 0, "long": 0, "loud": 0, "soft": 0]
        }
    }

    static func object(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }
}

@Suite struct JudgeCommandTests {
    @Test func generatedPerformancesAreCountedVerdictByVerdict() throws {
        let etude = try Etude()
        let lesson = try etude.home.write("ear.abc", EarPerformance.lesson)
        for performance in EarPerformance.allCases {
            let file = try etude.home.write("\(performance.rawValue).mid", performance.midi)
            let r = try etude.run(["judge", lesson, file, "--json"])
            #expect(r.status == 0, "\(performance): \(r.stderr)")
            let json = try EarPerformance.object(r.stdout)
            for (key, value) in performance.counts {
                #expect(json[key] as? Int == value, "\(performance) \(key): \(r.stdout.prefix(400))")
            }
            #expect(json["dynamics"] as? Bool == true)
            let notes = try #require(json["notes"] as? [[String: Any]])
            #expect(notes.count == 8 && notes.first?["bar"] as? String == "1" && notes.last?["beat"] as? Double == 4)
            if performance == .semitone {
                #expect(notes[2]["onset"] as? String == "wrong" && notes[2]["pitch"] as? Int == 64)
                #expect(notes[2]["played"] as? Int == 65, "the wrong key is named: \(notes[2])")
                #expect(notes.filter { $0["played"] != nil }.count == 1)
            }
        }
        // The text panel names where it went wrong; the pass is in the history.
        let text = try etude.run(["judge", lesson, etude.home.file("short.mid")])
        #expect(text.status == 0 && text.stdout.contains("Releases: short 8, long 0"), "\(text.stdout)")
        #expect(text.stdout.contains("bar 2 beat 1  G4  RH  short (held 40%)"), "\(text.stdout)")
        // The history: five judged passes with the ear's counts (short.mid judged again the same
        // way is the same recording: stored once), and the per-bar picture in stats.
        let passes = try Store.open(path: etude.database).passes()
        #expect(passes.map(\.mode.rawValue) == Array(repeating: "judge", count: 5))
        #expect(passes.compactMap(\.figures).map(\.short) == [0, 8, 0, 0, 0])
        #expect(passes.compactMap(\.figures).map(\.loud) == [0, 0, 0, 4, 0])
        let stats = try etude.run(["stats", lesson])
        #expect(stats.status == 0 && stats.stdout.contains("Bars (last 5 judged passes, · = no faults): 1–2 "), "\(stats.stdout)")
        // Bar 1: 4 short + 4 loud + 1 wrong of 20 notes; bar 2: 4 + 4 of 20.
        #expect(stats.stdout.contains("Fail most: bar 1 (9 of 20 notes), bar 2 (8 of 20 notes)"), "\(stats.stdout)")
        // Every line carries its verdict, the hand as RH/LH, the wrong key named; counted once.
        let semitone = try etude.run(["judge", lesson, etude.home.file("semitone.mid")])
        #expect(semitone.stdout.contains("bar 1 beat 3  E4 → F4  RH  wrong"), "\(semitone.stdout)")
        #expect(semitone.stdout.contains("Hit 7 (early 0, on time 7, late 0) · missed 0 · wrong 1 · extra 0"), "\(semitone.stdout)")
    }

    @Test func badInputsAreOneLineEach() throws {
        let etude = try Etude()
        let lesson = try etude.home.write("ear.abc", EarPerformance.lesson)
        let exact = try etude.home.write("exact.mid", EarPerformance.exact.midi)
        let empty = try etude.home.write("nothing.mid", MIDIWriter.write(MIDIFile(format: 0, division: .ticksPerQuarter(480), tracks: [
            Track(events: [MIDIEvent(tick: 0, .meta(type: MetaType.endOfTrack, data: []))]),
        ])))
        let cases: [([String], String)] = [
            ([lesson, empty], "etude: \(empty) has no notes to judge; record a performance with etude record and give that file\n"),
            ([lesson, lesson], "etude: \(lesson) is not a MIDI file (no MThd header); give the .mid a recorder wrote, e.g. by etude record\n"),
            ([lesson, exact, "--hand", "left"], "etude: --hand left: "),
            ([lesson, etude.home.file("gone.mid")], "etude: \(etude.home.file("gone.mid")): no such file; give the .mid you recorded\n"),
        ]
        for (args, message) in cases {
            let r = try etude.run(["judge"] + args)
            #expect(r.status == 1, "\(args)")
            #expect(r.stderr.hasPrefix(message) && r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
            #expect(r.stdout.isEmpty)
        }
    }
}

/// The same performances played in play mode on a FIFO, in real time: the pass report counts
/// the same verdicts (the ear's counts do not depend on where the notes fell in the window).
@Suite(.serialized) struct PlayModeEarTests {
    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func generatedPerformancesOnAFIFOAreCountedVerdictByVerdict() throws {
        for performance in EarPerformance.allCases {
            let etude = try Etude()
            let lesson = try etude.home.write("ear.abc", EarPerformance.lesson)
            let fifo = etude.home.file("notes.fifo")
            #expect(mkfifo(fifo, 0o600) == 0)
            let fd = open(fifo, O_RDWR | O_CLOEXEC)
            #expect(fd >= 0)
            defer { close(fd) }
            let pane = try PracticeScreenTests.practice(etude, [lesson, "--repeat", "1", "--mode", "play", "--input", fifo,
                                                                "--report", etude.home.file("passes.jsonl"), "--window", "400"])
            // The count-in (one bar, 2 s at ♩=120) is shown; the pass starts at its end.
            #expect(eventually { pane.screen().contains("count-in 1/4") }, "\(pane.screen())")
            let start = Date(timeIntervalSinceNow: 2.0)
            for e in performance.events {
                let wait = start.timeIntervalSinceNow + e.time
                if wait > 0 { usleep(UInt32(wait * 1_000_000)) }
                MIDIBytes.send(fd, e.bytes)
            }
            #expect(eventually(30) { etude.home.read("passes.jsonl").hasSuffix("\n") }, "\(performance): \(pane.screen())")
            let json = try EarPerformance.object(String(etude.home.read("passes.jsonl").split(separator: "\n").first ?? ""))
            for (key, value) in performance.counts {
                #expect(json[key] as? Int == value, "\(performance) \(key): \(etude.home.read("passes.jsonl").prefix(500))")
            }
            try pane.keys("q")
            #expect(pane.exitStatus() == 0, "\(pane.stderr)")
            // The history keeps the ear's counts with the pass.
            let figures = try Store.open(path: etude.database).passes().compactMap(\.figures)
            #expect(figures.map(\.short) == [performance.counts["short"] ?? -1] && figures.map(\.soft) == [performance.counts["soft"] ?? -1],
                    "\(performance): \(figures)")
        }
    }
}

/// Wait mode on the computer keyboard at 80×24 names the key it waits for, and moves on as it is played.
@Suite(.serialized) struct WaitModeNamesTests {
    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func theHintLineAndKeyboardNameTheAwaitedKeys() throws {
        let pane = try TmuxPane(etude: try Etude(), ["practice", PracticeScreenTests.ode, "--hand", "right", "--mode", "wait", "--input", "keys"],
                                width: 80, height: 24)
        var screen = pane.waitFor { $0.contains("play E4 [d]") }
        #expect(screen.contains("play E4 [d]") && screen.contains("▷"), "\(screen)")
        try pane.keys("d")
        try pane.keys("d")
        screen = pane.waitFor { $0.contains("play F4 [f]") }
        #expect(screen.contains("play F4 [f]"), "\(screen)")
        try pane.keys("q")
        #expect(pane.exitStatus() == 0 && pane.ttyRestored)
    }
}
