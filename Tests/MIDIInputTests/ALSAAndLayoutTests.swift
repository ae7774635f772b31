import CALSA
import Foundation
import MIDIFile
import Synchronization
import Testing
import TestSupport
@testable import MIDIInput

@Suite struct ALSATests {
    let ports = [
        ALSAPort(client: 14, port: 0, clientName: "Midi Through", portName: "Midi Through Port-0", isHardware: false, isSoftware: true),
        ALSAPort(client: 24, port: 0, clientName: "Digital Piano", portName: "Digital Piano MIDI 1", isHardware: true, isSoftware: false),
        ALSAPort(client: 28, port: 1, clientName: "USB Uno", portName: "USB Uno MIDI In", isHardware: true, isSoftware: false),
    ]

    @Test func targetsParseFromTheInputOption() {
        #expect(InputSpec("midi") == .alsa(.firstKeyboard))
        #expect(InputSpec("midi:24:0") == .alsa(.address(client: 24, port: 0)))
        #expect(InputSpec("midi:Digital Piano") == .alsa(.named("Digital Piano")))
        #expect(InputSpec("keys") == .computerKeyboard)
        #expect(InputSpec("/dev/midi1") == .byteStream(path: "/dev/midi1"))
    }

    @Test func theFirstHardwareKeyboardIsPickedNotMidiThrough() {
        #expect(PortTarget.firstKeyboard.pick(from: ports)?.address == "24:0")
        #expect(PortTarget.named("uno").pick(from: ports)?.address == "28:1")
        #expect(PortTarget.address(client: 14, port: 0).pick(from: ports)?.clientName == "Midi Through")
        #expect(PortTarget.named("nothing").pick(from: ports) == nil)
        #expect(PortTarget.firstKeyboard.pick(from: [ports[0]]) == nil)
    }

    @Test func anUnknownPortNameListsThePorts() {
        let error = ALSAInput.noPortError(target: .named("Yamaha"), ports: ports)
        #expect(error.message.contains("Yamaha"))
        #expect(error.message.contains("Digital Piano MIDI 1 (24:0)"))
        #expect(!error.fallBackToComputerKeyboard)
        #expect(ALSAInput.noPortError(target: .firstKeyboard, ports: []).fallBackToComputerKeyboard)
    }

    /// Without a sequencer, opening falls back to the computer keyboard with one line.
    @Test(.disabled(if: Tools.alsaSequencer.available, "an ALSA sequencer is here: the fallback without one cannot be seen"))
    func withoutASequencerOpeningFallsBackInOneLine() throws {
        let input = ALSAInput(target: .firstKeyboard)
        do {
            try input.start { _ in }
            Issue.record("ALSA input started without /dev/snd/seq")
        } catch {
            #expect(error.fallBackToComputerKeyboard)
            #expect(error.message.contains("/dev/snd/seq"))
            #expect(!error.message.contains("\n"))
        }
        #expect(throws: InputError.self) { try ALSASequencer.inputPorts() }
    }

    /// A sequencer exists: listing works and never shows our own listing client.
    @Test(.enabled(if: Tools.alsaSequencer.available, Tools.alsaSequencer.reason))
    func theSequencerListsPortsWithoutOurOwnClient() throws {
        let listed = try ALSASequencer.inputPorts()
        #expect(!listed.contains { $0.clientName.hasPrefix("Etude") })
        let input = ALSAInput(target: .firstKeyboard)
        do {
            try input.start { _ in }
            input.stop()
        } catch {
            // No keyboard plugged in: the error must offer the fallback.
            #expect(error.fallBackToComputerKeyboard)
        }
    }
}

@Suite struct ComputerKeyboardTests {
    @Test func homeRowIsWhiteKeysFromC() {
        let layout = ComputerKeyboardLayout()
        let keys: [Character] = ["a", "w", "s", "e", "d", "f", "t", "g", "y", "h", "u", "j", "k"]
        #expect(keys.map { layout.pitch(for: $0) } == (60...72).map { UInt8($0) })
        #expect(layout.pitch(for: "A") == 60)
        #expect(layout.pitch(for: "q") == nil)
    }

    @Test func zAndXShiftOctavesWithinRange() {
        var layout = ComputerKeyboardLayout(baseOctave: 3)
        #expect(layout.pitch(for: "a") == 48)
        #expect(layout.press("x") == .octaveChanged(baseOctave: 4))
        #expect(layout.press("a") == .note(pitch: 60))
        for _ in 0..<20 { _ = layout.press("z") }
        #expect(layout.baseOctave == 0)
        #expect(layout.pitch(for: "a") == 12)
        for _ in 0..<20 { _ = layout.press("x") }
        #expect(layout.baseOctave == 8)
        #expect(layout.pitch(for: "a") == 108)
        #expect(layout.pitch(for: "'") == 125)
    }

    @Test func theLayoutDescribesItselfForTheHelpOverlay() {
        let layout = ComputerKeyboardLayout()
        #expect(layout.legend.first! == ("a", "C4"))
        #expect(layout.legend.contains { $0 == ("k", "C5") })
        #expect(layout.legend.contains { $0 == ("z", "octave down") })
        #expect(layout.helpLines.count == 3)
        #expect(layout.helpLines[1].contains("a = C4"))
    }

    @Test func keyPressesAreOnsetsWithAFixedLength() {
        var piano = ComputerKeyboardPiano(noteLength: 0.4)
        #expect(piano.press("a", at: 1.0) == [.note(PlayedNote(kind: .on, pitch: 60, velocity: 90, time: 1.0))])
        #expect(piano.press("d", at: 1.1).count == 1)
        #expect(piano.nextReleaseTime == 1.4)
        #expect(piano.releases(dueBy: 1.3).isEmpty)
        // Re-striking a sounding key releases it first.
        let restrike: [PlayedNote.Kind?] = piano.press("d", at: 1.3).map { event -> PlayedNote.Kind? in
            if case .note(let n) = event { return n.kind } else { return nil }
        }
        #expect(restrike == [.off, .on])
        let due = piano.releases(dueBy: 2.0)
        #expect(due.map(\.pitch) == [60, 64])
        #expect(due.allSatisfy { $0.kind == .off })
        #expect(abs(due[0].time - 1.4) < 1e-9)
        #expect(abs(due[1].time - 1.7) < 1e-9)
        #expect(piano.nextReleaseTime == nil)
        #expect(piano.press("q", at: 3).isEmpty)
    }
}

@Suite struct InputOpeningTests {
    @Test func openingFallsBackOrFailsWithOneLine() throws {
        let keys = try InputSpec("keys").open { _ in }
        #expect(keys.source == nil && keys.notice == nil)
        if ALSASequencer.unavailableReason != nil {
            let midi = try InputSpec("midi").open { _ in }
            #expect(midi.source == nil)
            #expect(midi.notice?.contains("computer keyboard") == true)
        }
        #expect(throws: InputError.self) { try InputSpec("/nonexistent/midi1").open { _ in } }
    }

    // `etude devices` (ports or why none) is checked through the binary in EndToEndTests.
}

@Suite struct ReconnectWatchTests {
    let piano = ALSAPort(client: 24, port: 0, clientName: "Digital Piano", portName: "Digital Piano MIDI 1", isHardware: true, isSoftware: false)
    let through = ALSAPort(client: 14, port: 0, clientName: "Midi Through", portName: "Midi Through Port-0", isHardware: false, isSoftware: true)
    let other = ALSAPort(client: 28, port: 0, clientName: "USB Uno", portName: "USB Uno MIDI In", isHardware: true, isSoftware: false)

    @Test func anUnpluggedKeyboardIsReconnectedUnderItsNewNumber() throws {
        var watch = ReconnectWatch(target: .address(client: 24, port: 0), connected: piano)
        #expect(watch.portLeft(client: 28, port: 0, wholeClient: true) == nil)  // not ours
        #expect(watch.portLeft(client: 24, port: 1, wholeClient: false) == nil)
        #expect(!watch.isWaiting)
        let left = watch.portLeft(client: 24, port: 0, wholeClient: false)
        let gone = try #require(left)
        #expect(gone == "Keyboard Digital Piano MIDI 1 is gone: plug it back in")
        #expect(watch.isWaiting)
        // Another device appearing does not take its place for an address target…
        #expect(watch.portToReconnect(among: [through, other]) == nil)
        // …the same keyboard back as client 25 does.
        var back = piano
        back.client = 25
        let port = try #require(watch.portToReconnect(among: [through, other, back]))
        #expect(port.address == "25:0")
        let line = watch.reconnected(to: port)
        #expect(line == "Keyboard Digital Piano MIDI 1 is back: reconnected")
        #expect(!watch.isWaiting)
        #expect(watch.portToReconnect(among: [back]) == nil)
    }

    @Test func theFirstKeyboardTargetTakesAnyKeyboardThatAppears() {
        var watch = ReconnectWatch(target: .firstKeyboard, connected: piano)
        #expect(watch.portLeft(client: 24, port: 5, wholeClient: true) != nil)  // whole client left
        #expect(watch.portToReconnect(among: [through]) == nil)
        #expect(watch.portToReconnect(among: [through, other]) == other)
    }

    /// Issue 38.3 (ALSA): fake announcements as the system announce port sends them — another
    /// device coming and going changes nothing; the keyboard's port exit is said in one line
    /// that fits 80 columns and leaves it awaited by name (the header's `keyboard gone`, wait
    /// mode's pause); a port start while it is gone reconnects the same device by its names
    /// under its new number, and that is said too.
    @Test func announcementsSayTheKeyboardGoneAndReconnectItByName() throws {
        var watch = ReconnectWatch(target: .named("Digital Piano"), connected: piano)
        var asked = 0
        let none: () -> [ALSAPort] = { asked += 1; return [] }
        #expect(watch.observe(.portStart(client: 28, port: 0), ports: none) == .nothing)
        #expect(watch.observe(.portExit(client: 28, port: 0), ports: none) == .nothing)
        #expect(watch.observe(.clientExit(client: 14), ports: none) == .nothing)
        #expect(asked == 0, "the ports are not listed while the keyboard is there")
        #expect(watch.missingPorts.isEmpty)

        let gone = watch.observe(.portExit(client: 24, port: 0), ports: none)
        #expect(gone == .gone("Keyboard Digital Piano MIDI 1 is gone: plug it back in"))
        if case .gone(let line) = gone { #expect(line.count <= InputWatchText.budget, "\(line.count) columns") }
        #expect(watch.missingPorts == ["Digital Piano MIDI 1"])
        // Its client going after its port says nothing more.
        #expect(watch.observe(.clientExit(client: 24), ports: none) == .nothing)

        // Another device appearing is not it (it is not "Digital Piano").
        #expect(watch.observe(.portStart(client: 28, port: 0), ports: { [through, other] }) == .nothing)
        #expect(watch.isWaiting)
        // The piano back as client 25.
        var back = piano
        back.client = 25
        #expect(watch.observe(.portStart(client: 25, port: 0), ports: { [through, other, back] }) == .reconnect(back))
        #expect(watch.reconnected(to: back) == "Keyboard Digital Piano MIDI 1 is back: reconnected")
        #expect(watch.missingPorts.isEmpty && watch.connected == back)
        // Gone again under its new number, as a whole client this time.
        #expect(watch.observe(.clientExit(client: 24), ports: none) == .nothing)
        #expect(watch.observe(.clientExit(client: 25), ports: none) == .gone("Keyboard Digital Piano MIDI 1 is gone: plug it back in"))
    }

    @Test func aLongPortNameIsShortenedToFitTheStatusLine() {
        let long = ALSAPort(client: 20, port: 0, clientName: "Yamaha Clavinova CLP-785 Digital Piano", portName: "Yamaha Clavinova CLP-785 Digital Piano MIDI 1",
                            isHardware: true, isSoftware: false)
        var watch = ReconnectWatch(target: .firstKeyboard, connected: long)
        guard case .gone(let line) = watch.observe(.clientExit(client: 20), ports: { [] }) else {
            Issue.record("the keyboard's client exit was not seen"); return
        }
        #expect(line.count <= InputWatchText.budget && line == "Keyboard Yamaha Cl…ano MIDI 1 is gone: plug it back in", "\(line)")
    }
}

@Suite struct SequencerShimTests {
    @Test(.disabled(if: Tools.alsaSequencer.available, "an ALSA sequencer is here: the shim's failure to open one cannot be seen"))
    func openingWithoutASequencerFailsCleanly() throws {
        do {
            _ = try SequencerHandle(name: "Etude test")
            Issue.record("opened a sequencer although /dev/snd/seq is unavailable")
        } catch {
            #expect(error.message.hasPrefix("cannot open the ALSA sequencer"))
            #expect(error.fallBackToComputerKeyboard)
        }
    }
}

/// Issue 38.3 on a real ALSA sequencer: a keyboard (a sequencer client with a readable port,
/// as a USB keyboard's is) that leaves is said and awaited, and when a client of the same name
/// comes back its port is reconnected by name and its notes arrive. Skipped where there is no
/// /dev/snd/seq (the rules are tested above with fake announcements).
@Suite(.serialized) struct ALSAReconnectTests {
    /// A fake keyboard: a sequencer client named `name` with one readable port.
    final class FakeKeyboard {
        let handle: UnsafeMutableRawPointer
        init(_ name: String) throws {
            var err = [CChar](repeating: 0, count: 256)
            guard let h = etude_seq_out_open(name, &err, Int32(err.count)) else {
                throw InputError("cannot open a sequencer client: \(TextDecoding.message(err))")
            }
            handle = h
        }
        func play(_ key: UInt8) {
            for bytes: [UInt8] in [[0x90, key, 90], [0x80, key, 0]] { _ = etude_seq_out_send(handle, bytes, Int32(bytes.count)) }
        }
        deinit { etude_seq_out_close(handle) }
    }

    @Test(.enabled(if: Tools.alsaSequencer.available, Tools.alsaSequencer.reason))
    func aKeyboardThatLeavesIsSaidAndReconnectedByNameWhenItReturns() throws {
        let name = "Etude Fake Piano \(getpid())"
        var piano: FakeKeyboard? = try FakeKeyboard(name)
        let events = Mutex<[InputEvent]>([])
        let input = ALSAInput(target: .named(name))
        try input.start { e in events.withLock { $0.append(e) } }
        defer { input.stop() }
        let lines = { events.withLock { $0.compactMap { if case .status(let s) = $0 { s } else { nil } } } }
        let notes = { events.withLock { $0.compactMap { if case .note(let n) = $0, n.isOn { Int(n.pitch) } else { nil } } } }
        piano?.play(60)
        #expect(eventually(5) { notes() == [60] }, "\(events.withLock { $0 })")
        piano = nil  // unplugged
        #expect(eventually(5) { lines().contains { $0.hasSuffix(" is gone: plug it back in") } }, "\(lines())")
        #expect(input.missingPorts.count == 1)
        piano = try FakeKeyboard(name)  // plugged back in: a new client number
        #expect(eventually(5) { lines().contains { $0.hasSuffix(" is back: reconnected") } }, "\(lines())")
        #expect(input.missingPorts.isEmpty)
        piano?.play(62)
        #expect(eventually(5) { notes() == [60, 62] }, "the reconnected keyboard's note: \(events.withLock { $0 })")
    }
}
