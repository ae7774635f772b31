import Foundation
import MIDIFile
import Testing
import TestSupport

/// Performances of two bars of quarter notes at ♩=120 (C D E F | G F E D), as MIDI bytes timed
/// from the first note, for the review and the articulation tests.
enum TwoBarPerformance {
    static let pitches: [UInt8] = [60, 62, 64, 65, 67, 65, 64, 62]

    /// Each note held `held` of its value; `wrong` indices a semitone high, `missed` not played.
    static func events(held: Double, wrong: Set<Int> = [], missed: Set<Int> = []) -> [(time: Double, bytes: [UInt8])] {
        var out: [(time: Double, bytes: [UInt8])] = []
        for (i, p) in pitches.enumerated() where !missed.contains(i) {
            let t = Double(i) * 0.5
            let pitch = wrong.contains(i) ? p + 1 : p
            out.append((t, [0x90, pitch, 80]))
            out.append((t + 0.5 * held, [0x80, pitch, 0]))
        }
        return out.sorted { $0.time < $1.time }
    }

    /// The performance as a .mid (♩=120, 480 ticks a quarter), starting 1 s in.
    static func midi(_ events: [(time: Double, bytes: [UInt8])]) -> [UInt8] {
        var track: [MIDIEvent] = [MIDIEvent(tick: 0, .meta(type: MetaType.tempo, data: [0x07, 0xA1, 0x20]))]
        for e in events {
            let tick = Int(((e.time + 1) * 960).rounded())
            let kind: MIDIEvent.Kind = e.bytes[0] == 0x90 ? .noteOn(channel: 0, key: e.bytes[1], velocity: e.bytes[2])
                : .noteOff(channel: 0, key: e.bytes[1], velocity: 0)
            track.append(MIDIEvent(tick: tick, kind))
        }
        track.append(MIDIEvent(tick: (track.last?.tick ?? 0) + 10, .meta(type: MetaType.endOfTrack, data: [])))
        return MIDIWriter.write(MIDIFile(format: 0, division: .ticksPerQuarter(480), tracks: [Track(events: track)]))
    }
}

/// ABC staccato and tenuto change what the ear expects of a release, judged by `etude judge`:
/// bar 1 staccato (`.`), bar 2 tenuto (`!tenuto!`).
@Suite struct ArticulationJudgeTests {
    static let lesson = "X:1\nT:Articulation Test\nM:4/4\nL:1/4\nQ:1/4=120\nK:C\n.C .D .E .F | !tenuto!G !tenuto!F !tenuto!E !tenuto!D |]\n"
    static let plain = "X:1\nT:Plain Test\nM:4/4\nL:1/4\nQ:1/4=120\nK:C\nC D E F | G F E D |]\n"

    /// The same two bars as a MusicXML score: `<staccato/>` (whose sound the reader halves) and `<tenuto/>`.
    static let score: String = {
        func note(_ step: String, _ mark: String) -> String {
            "<note><pitch><step>\(step)</step><octave>4</octave></pitch><duration>1</duration><type>quarter</type>"
                + "<notations><articulations><\(mark)/></articulations></notations></note>"
        }
        let bar1 = ["C", "D", "E", "F"].map { note($0, "staccato") }.joined()
        let bar2 = ["G", "F", "E", "D"].map { note($0, "tenuto") }.joined()
        return """
        <?xml version="1.0" encoding="UTF-8"?>
        <score-partwise version="3.1"><work><work-title>Articulation Score</work-title></work>
        <part-list><score-part id="P1"><part-name>Piano</part-name></score-part></part-list>
        <part id="P1"><measure number="1"><attributes><divisions>1</divisions><key><fifths>0</fifths></key>
        <time><beats>4</beats><beat-type>4</beat-type></time><clef><sign>G</sign><line>2</line></clef></attributes>
        <direction placement="above"><direction-type><metronome><beat-unit>quarter</beat-unit><per-minute>120</per-minute></metronome></direction-type><sound tempo="120"/></direction>
        \(bar1)</measure><measure number="2">\(bar2)</measure></part></score-partwise>
        """
    }()

    @Test func staccatoAndTenutoChangeTheReleaseExpected() throws {
        let etude = try Etude()
        let marked = try etude.home.write("marked.abc", Self.lesson)
        let xml = try etude.home.write("marked.musicxml", Self.score)
        let plain = try etude.home.write("plain.abc", Self.plain)
        // (held, lesson, short, long): detached notes are right under a staccato and short
        // under a tenuto; legato notes are long under a staccato; 70 % passes a plain note
        // but is short under a tenuto.
        let cases: [(Double, String, Int, Int)] = [
            (0.4, marked, 4, 0), (0.4, plain, 8, 0), (0.4, xml, 4, 0),
            (0.95, marked, 0, 4), (0.95, plain, 0, 0), (0.95, xml, 0, 4),
            (0.7, marked, 4, 0), (0.7, plain, 0, 0), (0.7, xml, 4, 0),
        ]
        for (held, lesson, short, long) in cases {
            let file = try etude.home.write("held-\(Int(held * 100)).mid", TwoBarPerformance.midi(TwoBarPerformance.events(held: held)))
            let r = try etude.run(["judge", lesson, file, "--json"])
            #expect(r.status == 0, "\(r.stderr)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            #expect(json["hit"] as? Int == 8 && json["short"] as? Int == short && json["long"] as? Int == long,
                    "held \(held) \(lesson): \(r.stdout.prefix(300))")
            if lesson != plain, held == 0.4 {
                let notes = try #require(json["notes"] as? [[String: Any]])
                #expect(notes.prefix(4).allSatisfy { $0["release"] as? String == "ok" })
                #expect(notes.suffix(4).allSatisfy { $0["release"] as? String == "short" })
            }
        }
        // The staff carries the marks as a score's: staccato on bar 1's heads, tenuto on bar 2's.
        let score = try etude.run(["score", marked, "--json"])
        #expect(score.status == 0, "\(score.stderr)")
        #expect(score.stdout.components(separatedBy: "\"staccato\"").count - 1 == 4, "\(score.stdout.prefix(600))")
        #expect(score.stdout.components(separatedBy: "\"tenuto\"").count - 1 == 4, "\(score.stdout.prefix(600))")
    }
}

/// After a pass with mistakes, Enter on the results panel reviews it bar by bar at 80×24: the
/// first bar with a mistake, its notes marked (glyphs that survive NO_COLOR), a line counting
/// them, → / n / ← / p stepping, Esc back to the results.
@Suite(.serialized) struct PassReviewScreenTests {
    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func aPassWithMistakesIsReviewedBarByBar() throws {
        var etude = try Etude()
        etude.environment["NO_COLOR"] = "1"
        let lesson = try etude.home.write("review.abc", ArticulationJudgeTests.plain)
        let fifo = etude.home.file("notes.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let fd = open(fifo, O_RDWR | O_CLOEXEC)
        #expect(fd >= 0)
        defer { close(fd) }
        let pane = try TmuxPane(etude: etude, ["practice", lesson, "--repeat", "1", "--mode", "play", "--input", fifo, "--window", "400"],
                                width: 80, height: 24)
        #expect(eventually { pane.screen().contains("count-in 1/4") }, "\(pane.screen())")
        // Bar 1: D a semitone high (wrong), E not played (missed); bar 2 as written.
        let start = Date(timeIntervalSinceNow: 2.0)
        for e in TwoBarPerformance.events(held: 0.9, wrong: [1], missed: [2]) {
            let wait = start.timeIntervalSinceNow + e.time
            if wait > 0 { usleep(UInt32(wait * 1_000_000)) }
            MIDIBytes.send(fd, e.bytes)
        }
        var screen = pane.waitFor(30) { $0.contains("Enter reviews the pass bar by bar") }
        #expect(screen.contains("Enter reviews the pass bar by bar") && screen.contains("any key continues"), "\(screen)")
        try pane.keys("Enter")
        screen = pane.waitFor { $0.contains("bar 1: 1 wrong, 1 missed") }
        #expect(screen.contains("bar 1: 1 wrong, 1 missed") && screen.contains("· 1 of 2 ·"), "\(screen)")
        #expect(screen.contains("review of pass 1"), "\(screen)")
        // The wrong and the missed note carry their glyphs on the falling notes (no colour).
        let falling = screen.split(separator: "\n", omittingEmptySubsequences: false).dropFirst(3).prefix(24 - 3 - 4 - 1).joined(separator: "\n")
        #expect(falling.contains("×") && falling.contains("◌"), "\(screen)")
        #expect(!screen.contains("any key continues"), "the results panel is away: \(screen)")
        // At 60×20 and 200×50 the review keeps its line (shortened by whole words), its marks
        // and the footer's keys; no line past the width (issue 39).
        let words = Set("bar 1: 1 wrong, 1 missed, 2 late · 1 of 2 · ←/→ bar · Esc back".split(separator: " ").map(String.init))
        for (w, h) in [(60, 20), (200, 50)] {
            try pane.resize(width: w, height: h)
            let resized = pane.waitFor { $0.split(separator: "\n").first.map { $0.count > 24 } == true && $0.contains("bar 1:") && $0.contains("×") }
            ScreenSizesTests.check(resized, width: w, words: words, "review \(w)×\(h)")
            #expect(resized.contains("bar 1: 1 wrong") && resized.contains("×") && resized.contains("◌"), "\(w)×\(h): \(resized)")
        }
        try pane.resize(width: 80, height: 24)
        _ = pane.waitFor { $0.contains("·  1 of 2  ·") }
        try pane.keys("Right")
        screen = pane.waitFor { $0.contains("·  2 of 2  ·") }
        #expect(screen.contains("bar 2: ") && screen.contains("·  2 of 2  ·") && !screen.contains("wrong,") && !screen.contains("missed"), "\(screen)")
        try pane.keys("p")
        screen = pane.waitFor { $0.contains("·  1 of 2  ·") }
        #expect(screen.contains("bar 1: 1 wrong, 1 missed"), "\(screen)")
        try pane.keys("n")
        #expect(pane.waitFor { $0.contains("·  2 of 2  ·") }.contains("·  2 of 2  ·"))
        // ? lists the review's keys and what each mark means.
        try pane.keys("?")
        screen = pane.waitFor { $0.contains("first bar with a mistake") }
        #expect(screen.contains("first bar with a mistake") && screen.contains("◌") && screen.contains("missed"), "\(screen)")
        try pane.keys("Space")
        #expect(pane.waitFor { !$0.contains("first bar with a mistake") }.contains("·  2 of 2  ·"))
        try pane.keys("Escape")
        screen = pane.waitFor { $0.contains("any key continues") }
        #expect(screen.contains("any key continues") && !screen.contains("·  2 of 2  ·"), "\(screen)")
        try pane.keys("q")
        #expect(pane.exitStatus() == 0 && pane.ttyRestored, "\(pane.stderr)")
    }

    /// Wait mode on the computer keyboard, NO_COLOR: after a pass with a wrong key, the falling
    /// notes of the next pass carry the last pass's marks while its results are up.
    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func theFallingNotesCarryTheLastPassesVerdicts() throws {
        var etude = try Etude()
        etude.environment["NO_COLOR"] = "1"
        let lesson = try etude.home.write("marks.abc", ArticulationJudgeTests.plain)
        let pane = try TmuxPane(etude: etude, ["practice", lesson, "--repeat", "2", "--mode", "wait", "--input", "keys"], width: 80, height: 24)
        #expect(pane.waitFor { $0.contains("play C4 [a]") }.contains("play C4 [a]"))
        // C D E F | G, F# (wrong) then F, E, D.
        for key in ["a", "s", "d", "f", "g", "t", "f", "d", "s"] {
            try pane.keys(key)
            usleep(600_000)
        }
        let screen = pane.waitFor { $0.contains("Enter reviews the pass bar by bar") }
        #expect(screen.contains("bar 2: F4 wrong key first"), "\(screen)")
        // Bar 1's C (right) falls at the keyboard line with ✓; bar 2's F, struck after F#, with x.
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let falling = lines.dropFirst(3).prefix(24 - 3 - 4 - 1)  // status and timeline, keyboard, footer
        #expect(falling.contains { $0.contains("✓") }, "\(screen)")
        #expect(falling.contains { $0.contains("x▓") || $0.contains("x▒") }, "\(screen)")
        try pane.keys("q")
        #expect(pane.exitStatus() == 0 && pane.ttyRestored, "\(pane.stderr)")
    }
}
