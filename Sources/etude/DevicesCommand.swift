import ArgumentParser
import Trainer
import MIDIFile
import MIDIInput
import Synth

/// `etude devices`: which MIDI keyboards Etude can listen to, or why there are none.
struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List MIDI input ports (ALSA sequencer, JACK) to use with --input midi:NAME, jack:PORT, and the audio output.",
        discussion: """
        Without a MIDI keyboard, practise with --input keys (the computer keyboard) or feed raw MIDI bytes from a MIDI device or a FIFO with --input PATH.

        Examples:
          etude devices
          etude devices --json
        """
    )

    @Flag(help: "Print one JSON object instead of text.") var json = false

    func run() throws {
        let ports: [ALSAPort]
        var reason: String?
        do {
            ports = try ALSASequencer.inputPorts()
        } catch {
            ports = []
            reason = error.message
        }
        if ports.isEmpty && reason == nil {
            reason = "no MIDI input ports: plug in a keyboard (and switch it on), then run etude devices again"
        }
        // The live synth's driver and its own buffer: its share of what `etude calibrate` measures.
        let audio = LiveSound().check()
        let jack = JackDevices.scan()
        if json {
            Console.out(JSONOutput.line(DevicesRecord(ports: ports, reason: reason, audio: audio, jack: jack)))
            return
        }
        defer { Console.out(jack.lines.map { $0 + "\n" }.joined() + "Audio output: \(audio.line)\n") }
        if let reason {
            Console.out("No MIDI input ports. \(reason)\nPractise with --input keys (computer keyboard) or --input /dev/midiN.\n")
            return
        }
        Console.out("MIDI input ports (use --input midi:NAME or midi:CLIENT:PORT):\n")
        let first = PortTarget.firstKeyboard.pick(from: ports)
        for p in ports {
            let kind = p.isHardware ? "hardware" : "software"
            let mark = p == first ? "  ← --input midi" : ""
            Console.out("  \(p.address.padding(toLength: 7, withPad: " ", startingAt: 0)) \(TextDecoding.sanitize(p.clientName)) / \(TextDecoding.sanitize(p.portName))  [\(kind)]\(mark)\n")
        }
    }
}
