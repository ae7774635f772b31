import ArgumentParser
import Devices
import Foundation
import Judge
import Lesson
import LessonLibrary
import MIDIFile
import MIDIInput
import Practice
import Reports
import Synth

/// The practice options shared by `export`, `loop` and `practice`, turned into a
/// `PracticePlan` by the Lesson module's parsers (so every command words errors alike).
/// Bars are not here: `loop` takes them as an argument, `export` as `--bars`.
struct PracticeOptions: ParsableArguments {
    @Option(help: "Hand(s) to practise: left, right or both.") var hand: PracticePlan.Hands = .both
    @Option(help: "The other hand: play, quiet or mute (export: mute unless given).") var other: PracticePlan.OtherHand?
    @Option(help: "Tempo as a percent of the lesson's own, 10–400% (e.g. 75%).") var tempo: TempoPercent?
    @Option(help: "Tempo as the BPM the lesson's first tempo becomes (quarter notes).") var bpm: BeatsPerMinute?
    @Option(help: "Passes to play: a number, or forever.") var `repeat`: PracticePlan.Repeat?
    @Option(name: .customLong("speed-trainer"), help: "START:TARGET:STEP percent: the tempo rises by STEP after each clean pass.")
    var speedTrainer: PracticePlan.SpeedTrainer?
    @Flag(name: .customLong("final-slow-pass"), help: "With --speed-trainer: end with one pass at the start tempo.")
    var finalSlowPass = false
    @Flag(help: "Click the beats (channel 10, accented downbeats).") var metronome = false
    @Option(name: .customLong("metronome-volume"), help: "Metronome volume, 0–100% (default 80%).") var metronomeVolume: MetronomeVolume?
    @Option(help: "Split a single piano part at this note (e.g. C4) instead of guessing.") var split: NoteArgument?
    @Option(help: "Transpose: semitones (−24…+24, e.g. +2) or a key (D, Bb, F#m; C:D for a lesson naming no key); 0 as written.") var transpose: Transposition.Request?

    /// What these options ask of the plan; its rules across settings are Lesson's (`PlanRequest`).
    var request: PlanRequest {
        PlanRequest(hands: hand, otherHand: other, tempo: tempo, bpm: bpm?.value, repeatMode: `repeat`, speedTrainer: speedTrainer,
                    finalSlowPass: finalSlowPass, metronome: metronome, metronomeVolume: metronomeVolume)
    }

    /// The rules across these options, before anything opens (one line, exit 1).
    func validate() throws {
        do { try request.check() } catch { throw EtudeFailure(error.cliMessage) }
    }

    /// The plan these options describe; `defaultOther` and `defaultRepeat` are the command's.
    /// With `lesson`, bars are read as the lesson numbers them (a score's printed bars,
    /// `12-16@2` the second time through); without, as counted bars.
    func plan(bars: BarsArgument?, lesson: Lesson? = nil, defaultOther: PracticePlan.OtherHand, defaultRepeat: PracticePlan.Repeat) throws(PlanError) -> PracticePlan {
        try request.plan(bars: bars, lesson: lesson, defaultOther: defaultOther, defaultRepeat: defaultRepeat)
    }

    /// The split pitch, if given.
    func splitPitch() -> Int? { split?.pitch }

    /// Reads the lesson file with the hand split applied; every failure is one line.
    func lesson(_ path: String) throws -> Lesson {
        try LessonFit.open(path, split: splitPitch(), transpose: transpose).lesson
    }
}

/// How the learner plays along (`practice --mode wait|play|memory`, routine entries with a
/// mode): the instrument and how strictly it is judged. Shared by `practice` and `routine run`
/// so both accept the same `--input` and word their errors alike.
struct PlayingOptions: ParsableArguments {
    @Option(help: "Where your notes come from (default: your instrument from `etude setup`, else keys): keys (computer keyboard), midi, midi:NAME, midi:CLIENT:PORT, jack (etude:midi_in), jack:PORT, audio, audio:SOURCE (PulseAudio), audio:jack (etude:mic) or audio:alsa:DEVICE (an acoustic piano through a microphone; headphones recommended; `etude calibrate --input audio` sets it up), or a MIDI device or FIFO path.")
    var input: InputSpec?
    @Option(help: "Timing window in ms for play/memory mode: a note this close to its time counts.")
    var window = TimingWindowMilliseconds(150)
    @Option(help: "Accuracy % for a clean pass: the speed trainer steps up only then.")
    var threshold = AccuracyThreshold(90)
    @Option(help: ArgumentHelp("Your input offset in ms for this session instead of the one `etude calibrate` stored (positive = your notes arrive late).", valueName: "ms"))
    var offset: InputOffsetMilliseconds?
    @Option(help: "Your keyboard's keys: 88, 76, 73, 61, 49, 37 or 25 (remembered for the input); notes off it are played for you.") var keys: KeyboardKeysArgument?
    @Option(help: "Your keyboard's range LOW-HIGH instead of --keys (e.g. C2-C7 or 36-96).") var range: KeyboardRangeArgument?
    @Option(help: "octave: move a hand that fits your keys by octaves onto them; none: don't (remembered with the keys).") var fit: OctaveFit?
    @Option(help: ArgumentHelp("on: hear the part you play, quietly, on Etude's synth only (never your instrument); off (default): Etude never sounds it while you play. Remembered per lesson; G on the practice screen.", valueName: "on|off"))
    var guide: Guide.Setting?

    /// The rules across these options, before anything opens (one line, exit 1).
    func validate() throws {
        if let keys, let range { throw EtudeFailure("--keys \(keys) and --range \(range) both given: use one of them") }
    }

    /// The playing settings, checked before anything opens: one line per mistake.
    func playing(mode: PracticeMode, report: String? = nil, saveDir: String? = nil) throws -> Playing {
        var p = Playing()
        p.mode = mode
        if let input {
            do { try input.check() } catch { throw EtudeFailure(error.message) }
            p.input = input
            p.inputChosen = true
        }
        p.window = window.window
        p.threshold = threshold.percent
        p.reportPath = report
        p.offsetMs = offset?.milliseconds
        p.guide = guide?.on
        if let saveDir {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: saveDir, isDirectory: &isDir), isDir.boolValue else {
                throw EtudeFailure("--save-dir \(saveDir): no such folder; create it or pick another")
            }
            p.saveDirectory = saveDir
        }
        return p
    }
}

/// The live synth's options, one group for every command that plays through it: the SoundFont,
/// the audio driver and FluidSynth's log.
struct SynthOptions: ParsableArguments {
    @Option(help: "SoundFont (.sf2/.sf3) to use instead of the one found automatically.") var soundfont: String?
    @Option(help: "Force one audio driver (pipewire, pulseaudio, alsa, jack, sdl2, oss) instead of trying jack (when a server runs), pipewire, pulseaudio, alsa.")
    var audioDriver: AudioDriver?
    @Flag(help: "Show the audio driver chosen and FluidSynth's own log.") var verbose = false

    /// The live synth these options describe.
    var sound: LiveSound { LiveSound(soundfont: soundfont, audioDriver: audioDriver?.name, verbose: verbose) }
}

/// `--audio-buffer MS` for every command that plays through the live synth.
struct AudioBufferOption: ParsableArguments {
    @Option(name: .customLong("audio-buffer"), help: ArgumentHelp("The synth's audio buffer in ms, 2–500 (default 40): longer is safer from crackles on a busy machine, shorter answers sooner.", valueName: "ms"))
    var audioBuffer: AudioBufferMilliseconds?

    /// `sound` with the buffer asked for.
    func applied(to sound: LiveSound) throws -> LiveSound {
        var s = sound
        s.bufferMilliseconds = audioBuffer?.milliseconds
        return s
    }
}

/// Etude's JACK client and the learner's instrument, for every command that plays or listens.
struct InstrumentOptions: ParsableArguments {
    @Option(name: .customLong("jack-name"), help: "Name of Etude's JACK client and its ports (default etude: etude:midi_in, etude:left, …).") var jackName: String?
    @Option(help: ArgumentHelp("on: Etude sounds what you play; off: your instrument does (remembered per input).", valueName: "on|off")) var echo: EchoChoice.Setting?
    @Option(help: ArgumentHelp("Where the lesson sounds: synth, instrument (through etude:midi_out) or both.", valueName: "synth|instrument|both")) var sound: LessonSound?
    @Option(name: .customLong("midi-out"), help: ArgumentHelp("Connect etude:midi_out to this JACK MIDI port first, or an ALSA sequencer port without JACK (the lesson then sounds on both unless --sound).", valueName: "PORT")) var midiOut: String?
    @Option(help: ArgumentHelp("Practice and routine run: light the keys to play next on this MIDI channel of etude:midi_out (Synthesia's key lights).", valueName: "1-16")) var lights: KeyLights.Channel?
    @Option(name: .customLong("metronome-out"), help: ArgumentHelp("Send the metronome to your instrument (etude:midi_out) on this MIDI channel, e.g. 10 for its drum kit; without it the clicks sound on Etude's synth only.", valueName: "1-16"))
    var metronomeOut: MetronomeOut.Channel?
    @Option(help: ArgumentHelp("Practice and routine run: commands from the instrument: off (default), on (A0 restart, B0 pause, C1 slower, D1 faster, E1 next loop) or NAME=KEY,…", valueName: "on|off|LIST")) var gestures: Gestures.Setting?

    /// The client's name is set while parsing: `--input jack` is checked (and the client opened) early.
    func validate() throws { try LiveSound.name(jackClient: jackName) }

    /// `sound` with these settings (one line for a bad value).
    func applied(to sound: LiveSound) throws -> LiveSound {
        sound.instrument(echo: echo, sound: self.sound, midiOut: midiOut, lights: lights, gestures: gestures, metronomeOut: metronomeOut)
    }
}
