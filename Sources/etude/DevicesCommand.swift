import ArgumentParser
import Devices
import MIDIFile
import MIDIInput
import Reports
import Synth

/// `etude devices`: which MIDI keyboards Etude can listen to, or why there are none.
struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List what you can play on here (each with its --input), then the JACK server, MIDI ports and audio output.",
        discussion: """
        The inputs come first: JACK MIDI sources (--input jack:PORT), ALSA ports (--input midi:NAME), a microphone (--input audio), and the computer keyboard (--input keys), which always works. A MIDI device or FIFO can be given as --input PATH. Etude's own ports are never listed. `etude setup` stores one as your instrument.

        Examples:
          etude devices
          etude devices --json
        """
    )

    @Flag(help: "Print one JSON object instead of text.") var json = false

    func run() throws {
        let (ports, reason) = DeviceList.alsa()
        // The live synth's driver and its own buffer: its share of what `etude calibrate` measures.
        let audio = LiveSound().check()
        let jack = JackDevices.scan()
        if json {
            Console.out(JSONOutput.line(DevicesRecord(ports: ports, reason: reason, audio: audio, jack: jack)))
            return
        }
        let list = DeviceList(alsaPorts: ports, alsaReason: reason, jack: jack,
                              microphone: FluidSynthLive.deviceSampleRate(drivers: ["pulseaudio"]) != nil, audioLine: audio.line)
        Console.out(list.lines.map { $0 + "\n" }.joined())
    }
}
