import Foundation
import Judge
import MIDIFile
import Store
import Testing
import TestSupport

/// `etude record` with MIDI bytes written into a FIFO.
@Suite("etude record", .serialized)
struct RecordCommandTests {
    @Test func recordsWhatIsPlayedThroughTheFifoToAValidMidiFile() throws {
        let etude = try Etude()
        let fifo = etude.home.file("in.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let out = etude.home.file("mine.mid")
        let r = try MIDIBytes.run(etude, ["record", "-o", out, "--input", fifo, "--bpm", "100"], fifo: fifo) { fd in
            MIDIBytes.send(fd, [0x90, 60, 100])
            usleep(300_000)
            MIDIBytes.send(fd, [0x90, 64, 80, 0xF8, 67, 70])  // a chord: running status, a clock byte inside
            usleep(200_000)
            MIDIBytes.send(fd, [0x80, 60, 0, 0x90, 64, 0, 67, 0])  // note-off, then note-on velocity 0 as offs
        }
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("recorded 3 notes"))
        #expect(r.stderr.contains("closed the FIFO"))
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: out)))
        let file = try MIDIReader.read(bytes, strict: true).file
        let notes = NotePairing.notes(in: file).notes.sorted { ($0.startTick, $0.pitch) < ($1.startTick, $1.pitch) }
        #expect(notes.map(\.pitch) == [60, 64, 67])
        #expect(notes.map(\.velocity) == [100, 80, 70])
        let map = TempoMap(file: file)
        #expect(abs(map.bpm(atTick: 0) - 100) < 0.01)
        // Lengths come from the note-offs: C held across both sleeps, the chord across the second.
        let c = notes[0], e = notes[1]
        #expect(map.seconds(atTick: c.endTick) - map.seconds(atTick: c.startTick) >= 0.45)
        #expect(map.seconds(atTick: e.endTick) - map.seconds(atTick: e.startTick) >= 0.15)
        #expect(e.startTick > c.startTick)
        #expect(e.endTick == c.endTick || abs(map.seconds(atTick: e.endTick) - map.seconds(atTick: c.endTick)) < 0.01)
    }

    @Test func stopsByItselfAfterTheBarsAsked() throws {
        let etude = try Etude()
        let fifo = etude.home.file("in.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let out = etude.home.file("bars.mid")
        // One 4/4 bar at 120 BPM is two seconds; the note comes a moment after the FIFO opens
        // (a busy machine may still be starting the recorder) and the writer keeps it open
        // for longer than the bar.
        let r = try MIDIBytes.run(etude, ["record", "-o", out, "--input", fifo, "--bpm", "120", "--bars", "1", "--metronome"], fifo: fifo) { fd in
            usleep(300_000)
            MIDIBytes.send(fd, [0x90, 72, 90])
            usleep(3_500_000)
        }
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!r.stderr.contains("closed the FIFO"))
        let file = try MIDIReader.read(try [UInt8](Data(contentsOf: URL(fileURLWithPath: out))), strict: true).file
        let notes = NotePairing.notes(in: file).notes
        #expect(notes.map(\.pitch) == [72])
        // Held at the stop: it ends at the stop, within the bar.
        let map = TempoMap(file: file)
        #expect(map.seconds(atTick: notes[0].endTick) <= 2.2)
    }

    @Test func withoutAnyInputAndNoTerminalItSaysWhatToDo() throws {
        let etude = try Etude()
        let r = try etude.run(["record", "-o", etude.home.file("x.mid"), "--input", "keys"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("etude: nothing to record from"))
        #expect(!FileManager.default.fileExists(atPath: etude.home.file("x.mid")))
        let missing = try MIDIBytes.run(etude, ["record", "-o", etude.home.file("y.mid"), "--input", etude.home.file("nope")],
                                        fifo: "/nonexistent") { _ in }
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("cannot read MIDI input"))
    }
}

/// `etude record --input keys` on a pseudo-terminal: the computer keyboard plays, q stops,
/// the file holds the notes typed and the terminal modes are put back.
@Suite("etude record on a terminal", .serialized)
struct RecordOnATerminalTests {
    @Test func computerKeyboardNotesAreRecordedAndTheTerminalRestored() throws {
        let etude = try Etude()
        let out = etude.home.file("keys.mid")
        let tty = try PseudoTerminal(columns: 100, rows: 24)
        let before = tty.modes()
        let p = try etude.start(["record", "-o", out, "--input", "keys", "--bpm", "120"], terminal: tty)

        #expect(tty.waitFor("● recording"))
        tty.send("a")
        #expect(tty.waitFor("1 notes"))
        tty.send("s")
        #expect(tty.waitFor("2 notes"))
        tty.send("x")  // octave up: the next `a` is C5
        tty.send("a")
        #expect(tty.waitFor("3 notes"))
        tty.send("q")
        #expect(tty.waitFor("recorded 3 notes"))
        #expect(p.wait(timeout: 60) == 0, "\(tty.text)")
        let after = tty.modes()
        #expect(after.c_lflag == before.c_lflag)
        #expect(after.c_iflag == before.c_iflag)

        let file = try MIDIReader.read(try [UInt8](Data(contentsOf: URL(fileURLWithPath: out))), strict: true).file
        let notes = NotePairing.notes(in: file).notes.sorted { $0.startTick < $1.startTick }
        #expect(notes.map(\.pitch) == [60, 62, 72])
        // Onset-only keys: each note gets the fixed length (0.4 s = 384 ticks at 120 BPM, 480 tpq),
        // or less when stopped.
        for n in notes { #expect(n.endTick - n.startTick <= 384) }
    }
}

@Suite("etude quiz", .serialized)
struct QuizCommandTests {
    @Test func notesQuizScoresTheAnswersPlayedThroughTheFifoAndKeepsTheResult() throws {
        let etude = try Etude()
        let fifo = etude.home.file("in.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        // The same seed asks the same questions: answer two right and the third a semitone off.
        let quiz = try Quiz(kind: .notes, count: 3, range: PitchRange.parse("C4-C5"), seed: 42)
        let answers = quiz.questions.enumerated().map { i, q in UInt8(q.pitches[0] + (i == 2 ? 1 : 0)) }
        let r = try MIDIBytes.run(etude, ["quiz", "notes", "--questions", "3", "--range", "C4-C5", "--seed", "42", "--input", fifo],
                                  fifo: fifo) { fd in
            for a in answers { MIDIBytes.send(fd, [0x90, a, 90, 0x80, a, 0]) }
        }
        #expect(r.status == 0, "\(r.stderr)")
        for q in quiz.questions { #expect(r.stdout.contains(q.prompt)) }
        #expect(r.stdout.contains("the answer is \(quiz.questions[2].answerText)"))
        #expect(r.stdout.contains("you played \(PitchName.name(Int(answers[2])))"))
        #expect(r.stdout.contains("Score: 2/3 (66.7%)"))
        let store = try Store.open(path: etude.database)
        let passes = try store.passes()
        #expect(passes.count == 1)
        #expect(passes.first?.mode.rawValue == "quiz-notes")
        #expect(passes.first?.accuracy == 66.67)
        #expect(passes.first?.hit == 2 && passes.first?.wrong == 1)
        // The result is history (stats), not a lesson to list or open.
        let listed = try etude.run(["list", "--json"])
        #expect(!listed.stdout.lowercased().contains("quiz"), "\(listed.stdout)")
        let stats = try etude.run(["stats"])
        #expect(stats.status == 0 && stats.stdout.contains("Passes:       1 (1 scored)"), "\(stats.stdout)")
    }

    @Test func chordsAcceptAnyVoicingAndTheInputEndingStopsTheQuiz() throws {
        let etude = try Etude()
        let fifo = etude.home.file("in.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let quiz = try Quiz(kind: .chords, count: 4, range: PitchRange.parse("C3-C6"), seed: 7)
        // First chord voiced an octave up with the root on top; then the FIFO closes.
        let q = quiz.questions[0]
        let voiced = q.pitches.dropFirst().map { $0 + 12 } + [q.pitches[0] + 24]
        let r = try MIDIBytes.run(etude, ["quiz", "chords", "--questions", "4", "--seed", "7", "--input", fifo], fifo: fifo) { fd in
            for p in voiced { MIDIBytes.send(fd, [0x90, UInt8(p), 90]) }
        }
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("✓ right"))
        #expect(r.stdout.contains("stopped after 1 of 4 questions"))
        #expect(r.stdout.contains("Score: 1/1 (100%)"))
        #expect(r.stderr.contains("closed the FIFO"))
    }

    @Test func badRangeIsAOneLineError() throws {
        let etude = try Etude()
        let r = try MIDIBytes.run(etude, ["quiz", "notes", "--range", "C6-C3", "--input", etude.home.file("none")], fifo: "/nonexistent") { _ in }
        #expect(r.status == 1)
        #expect(r.stderr.contains("etude: range \"C6-C3\" goes downwards"))
    }
}

/// `etude devices`: the ports, or why there are none.
@Suite struct DevicesCommandTests {
    @Test func devicesCommandListsPortsOrSaysWhyNone() throws {
        let r = try Etude().run(["devices", "--json"])
        #expect(r.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let ports = try #require(object["ports"] as? [[String: Any]])
        if !Tools.alsaSequencer.available {
            #expect(ports.isEmpty)
            #expect(object["reason"] as? String == "no ALSA sequencer (/dev/snd/seq is missing or not accessible): MIDI keyboards cannot be used here; load the snd-seq module or check the audio group")
        } else if ports.isEmpty {
            #expect(object["reason"] is String)
        }
    }
}
