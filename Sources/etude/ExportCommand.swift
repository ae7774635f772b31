import ArgumentParser
import Foundation
import Lesson
import MIDIFile

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a lesson as practised (hands, bars, tempo, repeats, metronome) to a .mid file.",
        discussion: """
        The result is a format-1 file: a conductor track, "Right Hand" / "Left Hand" tracks, the
        accompaniment, and the tempo map scaled. Cutting at bar A carries the time signature, key,
        tempo and instruments in force there; notes held past bar B stop at the bar line.
        Examples:
          etude export song.mid -o slow.mid --tempo 60%
          etude export song.mid -o rh-5-8.mid --hand right --bars 5-8 --repeat 4 --metronome
          etude export song.mid -o drill.mid --bars 5-8 --repeat 5 --speed-trainer 60:100:10
        """
    )

    @Argument(help: "The lesson (.mid).") var lesson: String
    @Option(name: [.customShort("o"), .customLong("output")], help: "The .mid file to write.") var output: String
    @Option(help: "Which hand(s) to export: left, right or both.") var hand: String = "both"
    @Option(help: "Bars A-B to export, inclusive (e.g. 5-8; 0 is a pickup bar).") var bars: String?
    @Option(help: "Tempo as a percent of the lesson's own, 10–400% (e.g. 75%).") var tempo: String?
    @Option(help: "Tempo as the BPM the lesson's first tempo becomes.") var bpm: Double?
    @Option(help: "How many times the bars are played (each repeat gets a marker).") var `repeat`: String = "1"
    @Option(name: .customLong("speed-trainer"), help: "START:TARGET:STEP percent: each repeat a step faster.") var speedTrainer: String?
    @Flag(help: "Add a metronome track (channel 10).") var metronome = false
    @Option(help: "Split a single piano part at this note (e.g. C4) instead of guessing.") var split: String?

    func run() throws {
        do {
            let plan = try makePlan()
            let splitPitch = try Self.parseSplit(split)
            let read = try LessonFile.readMIDI(lesson)
            let source = Lesson(file: read.file, fileName: lesson, split: splitPitch)
            let file = try LessonExport.midiFile(lesson: source, plan: plan)
            try Self.write(MIDIWriter.write(file), to: output)
            let exportedLesson = Lesson(file: file, fileName: output)
            let range = plan.barRange(in: source)
            let passes = try LessonExport.passPercents(lesson: source, plan: plan)
            var line = "Wrote \(TextDecoding.sanitize(output)): bars \(range.lowerBound)–\(range.upperBound)"
            if passes.count > 1 { line += " × \(passes.count)" }
            line += ", \(plan.hands == .both ? "both hands" : "\(plan.hands.rawValue) hand")"
            var percents: [String] = []
            for p in passes.map({ "\(Self.format($0))%" }) where percents.last != p { percents.append(p) }
            line += ", tempo \(percents.joined(separator: "→"))"
            line += " (\(Self.format(source.tempoMap.bpm(atTick: 0) * passes[0] / 100)) BPM)"
            line += ", \(exportedLesson.notes.count) notes, \(file.tracks.count) tracks\n"
            Console.out(line)
        } catch let error as PlanError {
            throw EtudeFailure(error.message)
        }
    }

    func makePlan() throws(PlanError) -> PracticePlan {
        var plan = PracticePlan()
        plan.hands = try PracticePlan.parseHands(hand)
        plan.otherHand = .mute
        if let bars { plan.bars = try PracticePlan.parseBars(bars) }
        if tempo != nil && bpm != nil {
            throw PlanError("--tempo and --bpm both given: use one of them")
        }
        if let tempo { plan.tempo = try PracticePlan.parseTempo(tempo) }
        if let bpm {
            guard bpm > 0 else { throw PlanError("--bpm \(bpm): give a positive number of beats per minute") }
            plan.tempo = .bpm(bpm)
        }
        plan.repeatMode = try PracticePlan.parseRepeat(`repeat`)
        if let speedTrainer {
            if tempo != nil || bpm != nil {
                throw PlanError("--speed-trainer \(speedTrainer): the speed trainer sets the tempo itself; drop --tempo/--bpm")
            }
            plan.speedTrainer = try PracticePlan.parseSpeedTrainer(speedTrainer)
        }
        plan.metronome = PracticePlan.Metronome(enabled: metronome, volume: 0.8)
        return plan
    }

    static func parseSplit(_ text: String?) throws -> Int? {
        guard let text else { return nil }
        guard let p = PitchName.parse(text) else {
            throw EtudeFailure("--split \(text): give a note such as C4 or F#3, or a MIDI number 0–127")
        }
        return p
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue {
            throw EtudeFailure("-o \(path): is a directory; give a file name such as \(path)/lesson.mid")
        }
        let url = URL(fileURLWithPath: path)
        let parent = url.deletingLastPathComponent().path
        if !FileManager.default.fileExists(atPath: parent, isDirectory: &isDir) || !isDir.boolValue {
            throw EtudeFailure("-o \(path): the folder \(parent) does not exist")
        }
        do {
            try Data(bytes).write(to: url, options: .atomic)
        } catch {
            throw EtudeFailure("-o \(path): cannot write there (check the folder's permissions)")
        }
    }

    static func format(_ v: Double) -> String {
        let r = (v * 10).rounded() / 10
        return r == r.rounded() ? String(Int(r)) : String(r)
    }
}
