import Foundation
import Jack
import Synth
import MIDIFile
import Testing
import TestSupport

/// The lesson on JACK lands on its frame (issue 36, step 7): each lesson event is stamped with
/// its clock time and the callback plays it at that time's frame (plus a constant lead), so a
/// test client recording `etude:midi_out` and `etude:left` finds the lesson's gaps, not gaps
/// rounded to whole periods plus the sender's wake-up delay.
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
            track.append(MIDIEvent(tick: tick, .noteOn(channel: 9, key: 76, velocity: 110)))
            track.append(MIDIEvent(tick: tick + 48, .noteOff(channel: 9, key: 76, velocity: 0)))
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
}
