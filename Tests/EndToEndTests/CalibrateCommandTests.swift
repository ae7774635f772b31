import Foundation
import Testing
import TestSupport

/// `etude calibrate` as a user runs it, silent (no audio device): taps written into a FIFO as a
/// keyboard's MIDI bytes, following the beat lines without a terminal, or the screen in tmux.
@Suite(.serialized) struct CalibrateCommandTests {
    static let noteOn: [UInt8] = [0x90, 60, 90]
    static let noteOff: [UInt8] = [0x80, 60, 0]

    static func seconds() -> Double { ProcessInfo.processInfo.systemUptime }

    /// A FIFO in the user's home.
    static func fifo(_ etude: Etude, _ name: String = "taps.fifo") throws -> String {
        let path = etude.home.file(name)
        #expect(mkfifo(path, 0o600) == 0)
        return path
    }

    /// Runs `etude calibrate --input FIFO args…` without a terminal; as each `beat N/16` line
    /// appears, writes a key `delay(N)` seconds later (nil: no key). Returns the result.
    static func calibrate(_ etude: Etude, fifo: String, _ args: [String] = [], delay: (Int) -> Double?) throws -> ProcessResult {
        let p = try etude.start(["calibrate", "--input", fifo] + args)
        var fd: Int32 = -1
        _ = eventually(60, poll: 10_000) {
            fd = open(fifo, O_WRONLY | O_NONBLOCK)
            return fd >= 0 || !p.isRunning
        }
        guard fd >= 0 else { return p.result(timeout: 60) }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        var answered = 0
        let deadline = seconds() + 60
        while p.isRunning && seconds() < deadline {
            let beats = p.stdout.split(separator: "\n").filter { $0.hasPrefix("beat ") }.count
            if beats > answered {
                answered = beats
                if let d = delay(beats) {
                    usleep(useconds_t(max(0, d) * 1_000_000))
                    MIDIBytes.send(fd, noteOn)
                    MIDIBytes.send(fd, noteOff)
                }
            }
            usleep(1_000)
        }
        let r = p.result(timeout: 60)
        close(fd)
        return r
    }

    @Test func withoutATerminalItPrintsEachBeatAndTheResultLastAndStoresItForTheFifo() throws {
        let etude = try Etude()
        let fifo = try Self.fifo(etude)
        let r = try Self.calibrate(etude, fifo: fifo) { _ in 0.030 }
        #expect(r.status == 0, "\(r.stderr)\n\(r.stdout)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("calibrating \(fifo): 16 clicks at 100 BPM") == true, "\(r.stdout)")
        #expect(lines.filter { $0.hasPrefix("beat ") } == (1...16).map { "beat \($0)/16" })
        let last = try #require(lines.last)
        #expect(last.range(of: #"^offset -?\d+ ms, spread \d+ ms$"#, options: .regularExpression) != nil, "\(r.stdout)")
        // 30 ms after each line, plus however long a line takes to be seen here.
        let offset = try #require(Int(last.split(separator: " ")[1]))
        #expect(offset >= 25 && offset <= 250, "\(last)")
        #expect(lines.dropLast().last == "12 of 12 beats tapped; stored for \(fifo): judging takes it off your notes from now on")
        #expect(r.stderr.contains("no audio device"))

        let shown = try etude.run(["calibrate", "--show"])
        #expect(shown.status == 0)
        #expect(shown.stdout.hasPrefix("\(fifo)  offset \(offset) ms, spread "), "\(shown.stdout)")

        // Practice on the same FIFO judges with the stored offset: every report line says so.
        if Tools.tmux.available {
            let fd = open(fifo, O_RDWR | O_CLOEXEC)
            defer { close(fd) }
            let report = etude.home.file("passes.jsonl")
            let pane = try TmuxPane(etude: etude, ["practice", PracticeModesTests.lesson, "--hand", "right", "--bars", "1-1", "--repeat", "1",
                                                   "--mode", "wait", "--input", fifo, "--report", report])
            #expect(eventually { pane.screen().contains("mode: wait") }, "\(pane.screen())")
            MIDIBytes.playFirstBar(fd)
            #expect(eventually(30) { ((try? String(contentsOfFile: report, encoding: .utf8)) ?? "").hasSuffix("\n") }, "\(pane.screen())")
            let line = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""
            let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(json["offsetMs"] as? Double == Double(offset), "\(line)")
            #expect(json["hit"] as? Int == 4)
            try pane.keys("q")
            #expect(pane.exitStatus() == 0, "\(pane.stderr)")
        }

        let typo = try etude.run(["calibrate", "--reset", fifo + "x"])
        #expect(typo.status == 1)
        #expect(typo.stderr == "etude: --reset \(fifo)x: no offset is stored for it (stored: \(fifo))\n", "\(typo.stderr)")
        let reset = try etude.run(["calibrate", "--reset", fifo])
        #expect(reset.status == 0)
        #expect(reset.stdout == "cleared the offset of \(fifo) (was \(offset) ms)\n")
        let none = try etude.run(["calibrate", "--show"])
        #expect(none.stdout.hasPrefix("No input calibrated yet"))
        let again = try etude.run(["calibrate", "--reset", fifo])
        #expect(again.status == 0)
        #expect(again.stdout == "nothing to clear: no input is calibrated yet\n")
    }

    @Test func tapsTooUnevenAreRefusedWithNothingStored() throws {
        let etude = try Etude()
        let fifo = try Self.fifo(etude)
        // Alternately just after and far after the click: the spread is far beyond a steady hand.
        let r = try Self.calibrate(etude, fifo: fifo, ["--beats", "12"]) { n in n % 2 == 0 ? 0.01 : 0.22 }
        #expect(r.status == 1, "\(r.stdout)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.hasPrefix("beat ") }.count == 12)
        #expect(lines.last?.range(of: #"^offset -?\d+ ms, spread \d+ ms$"#, options: .regularExpression) != nil, "\(r.stdout)")
        let errors = r.stderr.split(separator: "\n").filter { !$0.contains("no audio device") }
        #expect(errors.count == 1)
        #expect(errors.first?.hasPrefix("etude: the taps spread ") == true, "\(r.stderr)")
        #expect(errors.first?.hasSuffix("too uneven to trust; nothing was saved: try again, playing one key exactly with each click") == true)
        #expect(try etude.run(["calibrate", "--show"]).stdout.hasPrefix("No input calibrated yet"))

        // No key at all: refused too.
        let silent = try Self.calibrate(etude, fifo: fifo, ["--beats", "8"]) { _ in nil }
        #expect(silent.status == 1)
        #expect(silent.stderr.contains("etude: only 0 of the 4 counted beats had a key played near them; nothing was saved"), "\(silent.stderr)")
    }

    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func theScreenShowsTheBeatAndTheResultWithFifoInput() throws {
        let etude = try Etude()
        let fifo = try Self.fifo(etude)
        let fd = open(fifo, O_RDWR | O_CLOEXEC)  // held open: the input lasts until the test ends
        defer { close(fd) }
        let pane = try TmuxPane(etude: etude, ["calibrate", "--input", fifo])
        #expect(eventually { pane.screen().contains("Etude — timing calibration · \(fifo)") }, "\(pane.screen())")
        #expect(pane.screen().contains("play any key on \(fifo) with each click"), "\(pane.screen())")
        #expect(eventually { pane.screen().contains("count-in 1/4") }, "\(pane.screen())")
        // A steady hand from the first click seen: one key every 0.6 s (100 BPM).
        let start = Self.seconds()
        for i in 0..<16 {
            let due = start + Double(i) * 0.6
            let wait = due - Self.seconds()
            if wait > 0 { usleep(useconds_t(wait * 1_000_000)) }
            MIDIBytes.send(fd, Self.noteOn)
            MIDIBytes.send(fd, Self.noteOff)
            if i == 8 {
                #expect(pane.screen().range(of: #"beat (8|9|10)/16"#, options: .regularExpression) != nil, "\(pane.screen())")
            }
        }
        let screen = pane.waitFor(20) { $0.contains("Stored for") || $0.contains("Nothing was saved") }
        #expect(screen.contains("done"), "\(screen)")
        #expect(screen.range(of: #"offset -?\d+ ms, spread \d+ ms"#, options: .regularExpression) != nil, "\(screen)")
        #expect(screen.contains("Stored for \(fifo)"), "\(screen)")
        #expect(screen.contains("Judging takes it off your notes from now on"), "\(screen)")
        #expect(screen.contains("r tries again · q or Enter closes"))
        try pane.keys("q")
        #expect(pane.exitStatus() == 0, "\(pane.stderr)")
        #expect(pane.ttyRestored)
        // The result stays in the terminal after the screen closes.
        #expect(eventually {
            let s = pane.joinedScreen()
            return s.contains("EXIT=0") && s.contains("beats tapped; stored for \(fifo)")
                && s.range(of: #"\noffset -?\d+ ms, spread \d+ ms\n"#, options: .regularExpression) != nil
        }, "\(pane.joinedScreen())")
        let shown = try etude.run(["calibrate", "--show"])
        #expect(shown.stdout.hasPrefix("\(fifo)  offset "), "\(shown.stdout)")
    }

    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func qStopsTheScreenEarlyWithNothingSaved() throws {
        let etude = try Etude()
        let pane = try TmuxPane(etude: etude, ["calibrate"])
        #expect(eventually { pane.screen().contains("any key but q taps the beat") }, "\(pane.screen())")
        try pane.keys("q")
        #expect(pane.exitStatus() == 0)
        #expect(pane.ttyRestored)
        #expect(eventually { pane.joinedScreen().contains("Calibration stopped at beat ") }, "\(pane.joinedScreen())")
        #expect(try etude.run(["calibrate", "--show"]).stdout.hasPrefix("No input calibrated yet"))
    }

    @Test func mistakesAreOneLineBeforeAnythingSounds() throws {
        let etude = try Etude()
        let cases: [([String], String)] = [
            (["calibrate", "--beats", "3"], "etude: --beats 3: give 8–64 beats (the first 4 count you in)\n"),
            (["calibrate", "somewhere"], "etude: somewhere: an input is named here only with --reset; calibrate one with --input\n"),
            (["calibrate"], "etude: nothing to tap with: no MIDI input and stdin is not a terminal; pass --input with a MIDI device or FIFO, or run it in a terminal\n"),
            (["calibrate", "--input", etude.home.file("none.fifo")], "etude: cannot read MIDI input \(etude.home.file("none.fifo")): No such file or directory; pass an existing MIDI device or FIFO (e.g. --input /dev/midi1), or midi\n"),
            (["calibrate", "--audio-buffer", "0.5"], "etude: --audio-buffer 0.5: give the audio buffer in milliseconds, 2–500 (e.g. 20; longer is safer from crackles, shorter answers sooner)\n"),
            (["practice", PracticeModesTests.lesson, "--offset", "soon"], "etude: --offset soon: give your input offset in milliseconds, −500 to 500 (positive when your notes arrive late; `etude calibrate` measures it)\n"),
            (["record", "-o", etude.home.file("x.mid"), "--offset", "900"], "etude: --offset 900: give your input offset in milliseconds, −500 to 500 (positive when your notes arrive late; `etude calibrate` measures it)\n"),
            (["play", PracticeModesTests.lesson, "--audio-buffer", "600"], "etude: --audio-buffer 600: give the audio buffer in milliseconds, 2–500 (e.g. 20; longer is safer from crackles, shorter answers sooner)\n"),
        ]
        for (args, message) in cases {
            let r = try etude.run(args)
            #expect(r.status == 1, "\(args)")
            let errors = r.stderr.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.contains("no audio device") }
            #expect(errors.joined(separator: "\n") == message, "\(args)")
        }
    }

    @Test func devicesAndSoundfontsSayWhichDriverTheSynthGetsAndItsBuffer() throws {
        let etude = try Etude()
        let text = try etude.run(["devices"])
        #expect(text.status == 0)
        #expect(text.stdout.hasSuffix("Audio output: no audio device (tried jack, pipewire, pulseaudio, alsa): Etude plays silently\n"), "\(text.stdout)")
        let json = try etude.run(["devices", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let audio = try #require(object["audio"] as? [String: Any])
        #expect(audio["driver"] is NSNull)
        // The default: 40 ms of buffer in 3 periods at the rate the synth would run.
        #expect(audio["periodSize"] as? Int == 640 && audio["periods"] as? Int == 3)
        #expect(audio["sampleRate"] as? Int == 48_000)
        #expect(audio["bufferMs"] as? Double == 40)
        let fonts = try etude.run(["soundfonts"])
        #expect(fonts.stdout.contains("audio output: no audio device (tried jack, pipewire, pulseaudio, alsa): Etude plays silently\n"), "\(fonts.stdout)")
    }
}
