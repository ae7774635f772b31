import Foundation
import Jack
import Synth
import MIDIFile
import MIDIInput
import Testing
import TestSupport

/// The JACK path's timing and its troubles, each on a dummy server of its own with test clients.
/// The lesson lands on its frame (issue 36, step 7): each lesson event is stamped with its clock
/// time and the callback plays it at that time's frame (plus a constant lead), so a client
/// recording `etude:midi_out` and `etude:left` finds the lesson's gaps, not gaps rounded to
/// whole periods plus the sender's wake-up delay. A flood, a piano that goes and comes back,
/// xruns and a dead server are each said in one line that fits 80 columns.
@Suite(.serialized, .enabled(if: JackServer.available, JackServer.reason))
struct JackTimingTests {
    static let font: String? = try? SoundFontLocator(explicit: nil).locate()

    /// Gaps in ticks between the lesson's notes (♩=120, 480 a quarter: 50 frames a tick at
    /// 48 kHz): none a multiple of the 512-frame period or of the synth's 64-frame block.
    static let gaps = [487, 517, 463, 541, 499, 521, 479, 509, 493, 531, 471]

    /// A wood block (GM drums, key 76) per gap, 48 ticks long, no reverb or chorus: each note
    /// dies away before the next, so every onset is heard on its own.
    static var lesson: [UInt8] {
        var track: [MIDIEvent] = [MIDIEvent(tick: 0, .meta(type: MetaType.tempo, data: [0x07, 0xA1, 0x20])),
                                  MIDIEvent(tick: 0, .controlChange(channel: 9, controller: 91, value: 0)),
                                  MIDIEvent(tick: 0, .controlChange(channel: 9, controller: 93, value: 0))]
        var tick = 480
        for gap in [0] + gaps {
            tick += gap
            track.append(MIDIEvent(tick: tick, .noteOn(channel: 9, key: 75, velocity: 110)))
            track.append(MIDIEvent(tick: tick + 48, .noteOff(channel: 9, key: 75, velocity: 0)))
        }
        track.append(MIDIEvent(tick: tick + 480, .meta(type: MetaType.endOfTrack, data: [])))
        return MIDIWriter.write(MIDIFile(format: 0, division: .ticksPerQuarter(480), tracks: [Track(events: track)]))
    }

    @Test(.enabled(if: font != nil, "a GM SoundFont is installed"))
    func theLessonsNotesKeepTheirGapsToTheFrameOnMidiOutAndToTheSynthBlockOnLeft() throws {
        let server = try JackServer(tag: "frames", period: 512)
        let etude = try Etude()
        let path = try etude.home.write("gaps.mid", Self.lesson)
        let ear = try #require(JackMeter(name: "ear", server: server.name))
        ear.recordOnsets(threshold: 1e-3, quietFrames: 4096)
        let p = try etude.start(["play", path, "--no-screen", "--sound", "both", "--midi-out", ear.listenPort, "--jack-name", "etude-frames",
                                 "--soundfont", Self.font ?? "", "--verbose"], extra: server.environment)
        #expect(eventually(20) { ear.connect(midi: "etude-frames:midi_in", audio: "etude-frames:left") }, "\(p.stderr)")
        #expect(p.wait(timeout: 60) == 0, "\(p.stderr)")
        let ons = ear.takeMIDIFrames().filter { $0.bytes.count == 3 && $0.bytes[0] == 0x99 && $0.bytes[2] > 0 }.map(\.frame)
        let onsets = ear.takeOnsets()
        let expected = Self.gaps.map { $0 * 50 }
        let midiGaps = zip(ons.dropFirst(), ons).map { Int(Int64($0) - Int64($1)) }
        let audioGaps = zip(onsets.dropFirst(), onsets).map { Int(Int64($0) - Int64($1)) }
        // Every note out, each gap the lesson's to the frame (±1 for rounding a time to a frame).
        #expect(midiGaps.count == expected.count, "note-ons on midi_out: \(ons)")
        for (got, want) in zip(midiGaps, expected) { #expect(abs(got - want) <= 1, "midi_out gaps \(midiGaps) vs \(expected): \(p.stderr)") }
        // On etude:left each note starts with the synth block its frame falls in (FluidSynth starts
        // voices on 64-frame blocks): within 63 frames, where whole 512-frame periods were before.
        #expect(audioGaps.count == expected.count, "onsets on left: \(onsets)")
        for (got, want) in zip(audioGaps, expected) { #expect(abs(got - want) < 64, "left gaps \(audioGaps) vs \(expected)") }
    }

    /// `etude record --input jack` on `server` as `name` (echo on, the default SoundFont).
    static func record(_ etude: Etude, server: JackServer, name: String, port: String? = nil, output: String) throws -> Spawned {
        var args = ["record", "--output", output, "--input", port.map { "jack:" + $0 } ?? "jack", "--jack-name", name]
        if let font { args += ["--soundfont", font] }
        return try etude.start(args, extra: server.environment)
    }

    /// The notes a recording holds.
    static func notes(in path: String) throws -> [RecordedNote] {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        return try NotePairing.notes(in: MIDIReader.read(bytes).file).notes.map { RecordedNote(pitch: Int($0.pitch)) }
    }

    struct RecordedNote: Equatable { var pitch: Int }

    /// Issue 40, point 7: 100 k events a second on etude:midi_in during `etude record` are one
    /// line, stopped in the JACK callback before they are recorded (a bounded number of notes
    /// gets through, the first quarter second's share); once the flood calms that is said and
    /// the keys count again.
    @Test func aFloodOnMidiInIsSaidOnceAndItsNotesAreNotRecorded() throws {
        let server = try JackServer(tag: "flood100k")
        let etude = try Etude()
        let out = etude.home.file("flood.mid")
        let recorder = try Self.record(etude, server: server, name: "etude-fl", output: out)
        #expect(server.waitForPort("etude-fl:left"), "\(recorder.stderr)")
        let key = try #require(JackMeter(name: "flooder", server: server.name))
        #expect(eventually(20) { key.connect(midi: "etude-fl:midi_in", audio: "etude-fl:left") })
        usleep(500_000)
        // 134 events a 1.3 ms cycle = 100 k a second, for two seconds: note-ons and -offs in turn.
        let started = Date()
        var cycles = 0
        while Date().timeIntervalSince(started) < 2 {
            let on = cycles % 2 == 0
            if key.send([on ? 0x90 : 0x80, UInt8(36 + cycles % 48), on ? 100 : 0], repeat: 134) { cycles += 1 } else { usleep(200) }
        }
        #expect(eventually(10) { recorder.stderr.contains("MIDI flood on etude-fl:midi_in (>2728/s): ignored") },
                "the flood is said: \(recorder.stderr)")
        // Calm again: said once, then an ordinary key is recorded.
        #expect(eventually(10) { recorder.stderr.contains("etude-fl:midi_in is calm again: its notes count") },
                "\(recorder.stderr)")
        #expect(eventually(2, poll: 100) { key.send([0x90, 100, 90]) })
        usleep(200_000)
        #expect(eventually(2, poll: 100) { key.send([0x80, 100, 0]) })
        usleep(300_000)
        recorder.signal(SIGTERM)
        #expect(recorder.wait(timeout: 30) == 128 + SIGTERM, "\(recorder.stderr)")
        let lines = recorder.stderr.split(separator: "\n").filter { $0.contains("MIDI flood") }
        #expect(lines.count == 1, "said once: \(recorder.stderr)")
        #expect(lines.allSatisfy { $0.dropFirst("etude: ".count).count <= InputWatchText.budget })
        let notes = try Self.notes(in: out)
        #expect(notes.count <= FloodGuard.maxEvents, "bounded: \(notes.count) notes of the flood recorded (100 k a second were sent)")
        #expect(notes.contains(RecordedNote(pitch: 100)), "the key after the flood is recorded")
    }

    /// Issue 38, point 3: the instrument's JACK client exits (switched off) and comes back under
    /// the same name: each is said at once, the port is connected again by name, and what is
    /// played after is recorded.
    @Test func aClientThatExitsAndReturnsIsSaidAndReconnected() throws {
        let server = try JackServer(tag: "dropout")
        let etude = try Etude()
        let out = etude.home.file("dropout.mid")
        var piano: JackMeter? = JackMeter(name: "piano", server: server.name)
        let recorder = try Self.record(etude, server: server, name: "etude-dr", port: "piano-key:out", output: out)
        #expect(eventually(20) { server.lsp(["-c"]).contains("piano-key:out\n   etude-dr:midi_in") }, "connected: \(server.lsp(["-c"]))")
        piano = nil  // the piano's client exits: its ports go
        #expect(eventually(10) { recorder.stderr.contains("etude: Keyboard piano-key:out is gone: plug it back in") },
                "said at once: \(recorder.stderr) \(server.lsp(["-c"]))")
        let back = try #require(JackMeter(name: "piano", server: server.name))
        #expect(eventually(10) { recorder.stderr.contains("etude: Keyboard piano-key:out is back: reconnected") }, "\(recorder.stderr)")
        #expect(eventually(10) { server.lsp(["-c"]).contains("piano-key:out\n   etude-dr:midi_in") }, "reconnected: \(server.lsp(["-c"]))")
        #expect(eventually(2, poll: 100) { back.send([0x90, 67, 90]) })
        usleep(200_000)
        #expect(eventually(2, poll: 100) { back.send([0x80, 67, 0]) })
        usleep(300_000)
        recorder.signal(SIGTERM)
        #expect(recorder.wait(timeout: 30) == 128 + SIGTERM, "\(recorder.stderr)")
        let said = recorder.stderr.split(separator: "\n").filter { $0.contains("Keyboard piano-key:out") }
        #expect(said.count == 2 && said.allSatisfy { $0.dropFirst("etude: ".count).count <= InputWatchText.budget }, "\(recorder.stderr)")
        #expect(try Self.notes(in: out).contains(RecordedNote(pitch: 67)), "the note played after the return is recorded")
        _ = piano
    }

    /// Issue 38, point 4: a client that misses JACK's deadline makes the server count xruns;
    /// Etude says so in one line with the fix.
    @Test func xrunsAreSaidWithTheFix() throws {
        let server = try JackServer(tag: "xruns")
        let etude = try Etude()
        let recorder = try Self.record(etude, server: server, name: "etude-x", output: etude.home.file("x.mid"))
        #expect(server.waitForPort("etude-x:left"), "\(recorder.stderr)")
        let key = try #require(JackMeter(name: "staller", server: server.name))
        #expect(eventually(20) { key.connect(midi: "etude-x:midi_in", audio: "etude-x:left") })
        usleep(1_500_000)
        for _ in 0..<4 {  // four stalled cycles: more than a client joining causes
            key.stall(0.05)
            usleep(300_000)
        }
        #expect(eventually(10) { recorder.stderr.contains("JACK xruns: use a larger period (jackd -p 128)") }, "\(recorder.stderr)")
        recorder.signal(SIGTERM)
        _ = recorder.wait(timeout: 30)
        let line = try #require(recorder.stderr.split(separator: "\n").first { $0.contains("xruns") })
        #expect(line.contains(" JACK xruns: ") && line.dropFirst("etude: ".count).count <= InputWatchText.budget, "\(line)")
    }

    /// Issue 38, point 3, on the practice screen: the piano's client exits mid-pass in wait
    /// mode — the status line says so at once, the header says `keyboard gone` and the pass
    /// pauses (■); it comes back and is reconnected (said too); then the JACK server dies and
    /// the header turns to `silent (no audio)` with one line saying what was lost.
    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func thePracticeScreenSaysTheKeyboardGoneAndTheServerDead() throws {
        let server = try JackServer(tag: "screen-drop")
        var etude = try Etude()
        etude.environment.merge(server.environment) { $1 }
        var piano: JackMeter? = JackMeter(name: "grand", server: server.name)
        let font = Self.font.map { ["--soundfont", $0] } ?? []
        let pane = try TmuxPane(etude: etude, ["practice", Repo.lesson("level1/c-major-five-finger-parallel.mid"), "--mode", "wait",
                                               "--input", "jack:grand-key:out", "--echo", "on", "--jack-name", "etude-sd"] + font,
                                width: 80, height: 24)
        #expect(pane.waitFor { $0.contains("mode: wait") }.contains("mode: wait"), "\(pane.screen())")
        try pane.keys(" ")  // start
        #expect(pane.waitFor { $0.contains("▷") || $0.contains("▶") }.contains("▷") || pane.screen().contains("▶"), "\(pane.screen())")
        piano = nil  // the piano is switched off
        let gone = pane.waitFor { $0.contains("keyboard gone") && $0.contains("Keyboard grand-key:out is gone") }
        #expect(gone.contains("keyboard gone") && gone.contains("Keyboard grand-key:out is gone: plug it back in"), "\(gone)")
        // The pass does not run on without the keyboard: the position stands still.
        let position = { (screen: String) in screen.split(separator: "\n").first?.split(separator: " ").first { $0.contains("/10") }.map(String.init) }
        let before = position(pane.screen())
        usleep(1_500_000)
        #expect(before != nil && position(pane.screen()) == before, "the pass pauses: \(pane.screen())")
        let back = try #require(JackMeter(name: "grand", server: server.name))
        let again = pane.waitFor { $0.contains("Keyboard grand-key:out is back: reconnected") }
        #expect(again.contains("is back: reconnected") && !again.contains("keyboard gone"), "\(again)")
        #expect(eventually(10) { server.lsp(["-c"]).contains("grand-key:out\n   etude-sd:midi_in") })
        server.kill()
        let dead = pane.waitFor { $0.contains("silent (no audio)") && $0.contains("JACK server gone") }
        #expect(dead.contains("silent (no audio)"), "the header: \(dead)")
        #expect(dead.contains("JACK server gone: silent; no notes from grand-key:out"), "\(dead.split(separator: "\n").suffix(6))")
        try pane.keys("q")
        #expect(pane.exitStatus(within: 30) == 0, "\(pane.screen())")
        _ = (piano, back)
    }
}
