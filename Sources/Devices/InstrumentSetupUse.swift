import Foundation
import Jack
import LessonLibrary
import MIDIInput
import Reports
import Store
import Synth

/// The learner's instrument, chosen once (`etude setup`, stored in the library) and used by
/// every command that plays along — practice, the browser, `resume`, routines, `today --run`,
/// `sight-read` — unless the command names its own (`--input` and the instrument options, which
/// each of them takes). A learner who never set one up keeps the computer keyboard.
public enum MyInstrument {
    /// What `setup` stored, nil when nothing was (or the library cannot be read).
    public static func stored(_ library: Library) -> InstrumentSetup? {
        guard let store = library.storeIfAvailable else { return nil }
        return (try? store.instrumentSetup()) ?? nil
    }

    /// `sound` and `playing` with what the command was not given filled from `setup`: the input
    /// (unless `--input` was given; `resumed`, the input a resumed session was left on, comes
    /// before the setup), the lesson's sound, MIDI out, key lights and gestures (each unless
    /// given). A stored value that no longer reads is left out, never guessed.
    public static func fill(sound: inout LiveSound, playing: inout Playing, setup: InstrumentSetup?, resumed: String? = nil) {
        if !playing.inputChosen {
            if let resumed, !resumed.isEmpty {
                playing.input = InputSpec.stored(resumed)
            } else if let setup {
                playing.input = InputSpec.stored(setup.input)
            }
        }
        // The rest of the setup belongs to the instrument it was made for.
        guard let setup, playing.input == InputSpec.stored(setup.input) else { return }
        if sound.lessonSound == nil, let text = setup.sound { sound.lessonSound = LessonSound(rawValue: text) }
        if sound.midiOut == nil { sound.midiOut = setup.midiOut }
        if sound.lights == nil, let channel = setup.lights, (1...16).contains(channel) { sound.lights = channel - 1 }
        if sound.gestures == nil, let text = setup.gestures { sound.gestures = (try? Gestures.Setting(parsing: text))?.gestures }
    }

    /// `fill` with the setup stored in `library`, checked: an instrument that is not here now
    /// (unplugged, its JACK server stopped) is one line, and the session goes on with the
    /// computer keyboard rather than not at all.
    public static func use(sound: inout LiveSound, playing: inout Playing, library: Library, resumed: String? = nil) {
        fill(sound: &sound, playing: &playing, setup: stored(library), resumed: resumed)
        guard !playing.inputChosen, playing.input != .computerKeyboard else { return }
        do { try playing.input.check() } catch {
            Console.error("etude: your instrument is not here (\(error.message)); playing on the computer keyboard — plug it in, or change it with `etude setup`")
            playing.input = .computerKeyboard
            sound.midiOut = nil
            sound.lessonSound = nil
            sound.lights = nil
            sound.gestures = nil
        }
    }

    /// What `etude setup --show` prints.
    public static func lines(_ setup: InstrumentSetup?, echo: Bool?) -> [String] {
        guard let setup else {
            return ["No instrument set up: Etude plays along with the computer keyboard (--input keys).",
                    "Set one up with `etude setup` (a list to choose from) or `etude setup --input jack:PORT` (see `etude devices`)."]
        }
        var out = ["Your instrument: --input \(safe(setup.input))"]
        if let echo { out.append("  echo:      \(echo ? "on (Etude sounds your notes)" : "off (your instrument sounds itself)")") }
        out.append("  sound:     \(setup.sound ?? (setup.midiOut == nil ? "synth" : "both"))")
        if let port = setup.midiOut { out.append("  MIDI out:  \(safe(port))") }
        if let lights = setup.lights { out.append("  lights:    channel \(lights)") }
        if let gestures = setup.gestures { out.append("  gestures:  \(safe(gestures))") }
        out.append("Used by practice, the browser, resume, routines, today --run and sight-read unless they name another (--input).")
        return out
    }
}

extension MyInstrument {
    /// What `etude setup` was given: each nil when not.
    public struct Choice: Sendable {
        public var input: String?
        public var echo: Bool?
        public var sound: LessonSound?
        public var midiOut: String?
        /// 1–16.
        public var lights: Int?
        /// As typed (`on`, `off`, `restart=A0,…`).
        public var gestures: String?

        public init(input: String? = nil, echo: Bool? = nil, sound: LessonSound? = nil, midiOut: String? = nil,
                    lights: Int? = nil, gestures: String? = nil) {
            self.input = input
            self.echo = echo
            self.sound = sound
            self.midiOut = midiOut
            self.lights = lights
            self.gestures = gestures
        }

        /// Nothing given: `setup` then asks (on a terminal) or shows.
        public var isEmpty: Bool { input == nil && echo == nil && sound == nil && midiOut == nil && lights == nil && gestures == nil }
    }

    /// The device an input names, as the echo and the offsets are remembered for it, resolved
    /// the way opening it would (`jack:piano` → `jack:piano-key:out`), and its source's name.
    static func device(_ input: String) -> (name: String, source: String?) {
        let spec = InputSpec.stored(input)
        switch spec {
        case .computerKeyboard: return (InputDeviceID.computerKeyboard, nil)
        case .jack(let port?):
            let found = (try? JackInput.check(port: port))?.1 ?? port
            return (InputDeviceID.jack(found), found)
        case .jack(nil):
            let own = "\(JackClient.requestedName):midi_in"
            return (InputDeviceID.jack(own), own)
        case .alsa(let target):
            let port = target.pick(from: (try? ALSASequencer.inputPorts()) ?? [])?.displayName
            return (port.map(InputDeviceID.alsa) ?? spec.description, port)
        case .audio(let name): return (InputDeviceID.audio(name), name ?? "default")
        case .byteStream(let path): return (InputDeviceID.path(path), path)
        }
    }

    /// `etude setup` with options: the input checked (it must be here now), the MIDI out
    /// reachable, then stored, with the echo for the device (given, else asked once of a MIDI
    /// instrument on a terminal). The choice starts from what was stored: `setup --lights 16`
    /// adds the lights to the instrument already set up. Returns the lines to print.
    public static func save(_ choice: Choice, library: Library, ask: (String) -> Bool? = EchoChoice.askOnTerminal) throws -> [String] {
        let store = try library.openStore()
        let old = (try? store.instrumentSetup()) ?? nil
        let input = choice.input ?? old?.input ?? InputDeviceID.computerKeyboard
        do { try InputSpec.stored(input).check() } catch { throw EtudeFailure(error.message) }
        var setup = choice.input == nil || choice.input == old?.input ? old ?? InstrumentSetup(input: input) : InstrumentSetup(input: input)
        setup.input = input
        if let sound = choice.sound { setup.sound = sound.rawValue }
        if let port = choice.midiOut {
            do { try FluidSynthLive.checkReachable(midiOut: port) } catch { throw EtudeFailure(error.message) }
            setup.midiOut = port
        }
        if let lights = choice.lights { setup.lights = lights }
        if let gestures = choice.gestures { setup.gestures = gestures.lowercased() == "off" ? nil : gestures }
        setup.updatedAt = Date()
        let spec = InputSpec.stored(input)
        var echo: Bool?
        if spec != .computerKeyboard {
            let (name, source) = device(input)
            if let given = choice.echo {
                try store.saveInputEcho(given, device: name)
                echo = given
            } else if let stored = try store.inputEcho(device: name) {
                echo = stored
            } else if let named = EchoChoice.askable(deviceID: name, sourceName: source, listening: { if case .audio = spec { return true } else { return false } }()),
                      let answer = ask(named) {
                try store.saveInputEcho(answer, device: name)
                echo = answer
            }
        }
        if spec == .computerKeyboard && setup.sound == nil && setup.midiOut == nil && setup.lights == nil && setup.gestures == nil {
            try store.saveInstrumentSetup(nil)  // the computer keyboard is what no setup means
            return lines(nil, echo: nil)
        }
        try store.saveInstrumentSetup(setup)
        return ["Saved."] + lines(setup, echo: echo)
    }

    /// `etude setup --forget`: back to the computer keyboard.
    public static func forget(library: Library) throws -> [String] {
        try library.openStore().saveInstrumentSetup(nil)
        return lines(nil, echo: nil)
    }

    /// `etude setup --show`.
    public static func show(library: Library) throws -> [String] {
        let setup = try library.openStore().instrumentSetup()
        let echo = setup.flatMap { s -> Bool? in
            InputSpec.stored(s.input) == .computerKeyboard ? nil : ((try? library.storeIfAvailable?.inputEcho(device: device(s.input).name)) ?? nil)
        }
        return lines(setup, echo: echo)
    }

    /// `etude setup` on a terminal with no options (and the browser's F7): the input from what
    /// can be played on here, then — for an instrument — where the lesson sounds, the port
    /// `etude:midi_out` goes to, the key lights' channel and the gestures, each a number or
    /// Enter for none; the echo is asked by `save`. Nil when no input was chosen.
    public static func interview(list: DeviceList, current: InstrumentSetup?, readLine: () -> String? = { Swift.readLine() }) -> Choice? {
        guard let input = pick(from: list, current: current?.input, readLine: readLine) else { return nil }
        var choice = Choice(input: input)
        let spec = InputSpec.stored(input)
        guard spec != .computerKeyboard, list.jack.running else { return choice }
        func ask(_ question: String) -> String? {
            Console.out(question)
            return readLine()?.trimmingCharacters(in: .whitespaces)
        }
        let sounds: [LessonSound] = [.synth, .instrument, .both]
        if let n = ask("Where should the lesson sound? 1) Etude's synth  2) your instrument  3) both  (Enter: synth): ").flatMap(Int.init),
           sounds.indices.contains(n - 1) {
            choice.sound = sounds[n - 1]
        }
        let ports = list.jack.midiDestinations
        if !ports.isEmpty {
            Console.out("Your instrument's MIDI input (etude:midi_out is connected to it):\n")
            for (i, p) in ports.enumerated() { Console.out("  \(i + 1)) \(safe(p))\n") }
            if let n = ask("Number (Enter: none): ").flatMap(Int.init), ports.indices.contains(n - 1) { choice.midiOut = ports[n - 1] }
        }
        if let n = ask("Key lights: the MIDI channel they listen on, 1–16 (Enter: none): ").flatMap(Int.init), (1...16).contains(n) {
            choice.lights = n
        }
        if let answer = ask("Gestures: A0 restart, B0 pause, C1 slower, D1 faster, E1 next loop, played on the instrument? y/n (Enter: n): "),
           answer.lowercased().hasPrefix("y") {
            choice.gestures = "on"
        }
        return choice
    }

    /// `etude setup` on a terminal with no options: what can be played on here, numbered; the
    /// learner types a number (Enter alone keeps what is set up). Nil when nothing was chosen.
    public static func pick(from list: DeviceList, current: String?, readLine: () -> String? = { Swift.readLine() }) -> String? {
        let choices = list.inputs
        Console.out("What do you play on?\n")
        for (i, c) in choices.enumerated() {
            let now = current.map { c.option == "--input \($0)" } ?? (c.option == "--input keys")
            Console.out("  \(i + 1)) \(c.option.dropFirst(8))  \(c.what)\(now ? "  ← now" : "")\n")
        }
        Console.out("Number (Enter keeps \(current.map { safe($0) } ?? "keys")): ")
        guard let line = readLine()?.trimmingCharacters(in: .whitespaces), !line.isEmpty else { return nil }
        guard let n = Int(line), choices.indices.contains(n - 1) else {
            Console.out("No such number; nothing changed.\n")
            return nil
        }
        return String(choices[n - 1].option.dropFirst(8))
    }
}
