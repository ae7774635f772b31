import ABC
import ArgumentParser
import Foundation
import LessonLibrary
import MIDIFile
import Reports

/// `etude abc`: compiles ABC notation to a Standard MIDI File, the form every other command
/// and every other program plays.
struct AbcCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "abc",
        abstract: "Convert an ABC tune to a MIDI lesson (hands, sections, fingering, metadata).",
        discussion: """
        Voices named right/RH and left/LH (or with clef=bass) become the "Right Hand" and "Left Hand" tracks; P: parts become section markers; !1!–!5! fingering and the written spelling of every note are kept as etude: text events; %%etude-level N and %%etude-description set the catalogue level and description. Warnings name every construct that is not played.

        Examples:
          etude abc song.abc -o song-from-abc.mid
          etude abc song.abc --tune 1
        """
    )

    @Argument(help: "The .abc file.") var file: String
    @Option(name: .shortAndLong, help: "The .mid file to write (default: the input with .mid).") var output: String?
    @Option(help: "Which tune of the file (its X: number; default the first).") var tune: Int?
    @Flag(help: "List the tunes in the file instead of converting.") var list = false
    @Flag(help: "Do not print warnings.") var quiet = false

    func run() throws {
        if list {
            let bytes = try LessonOpener.readBytes(file)
            for t in ABCImport.tunes(inABCText: String(decoding: bytes, as: UTF8.self)) {
                Console.out("X:\(t.number)  \(TextDecoding.sanitize(t.title))\n")
            }
            return
        }
        let out = output ?? (file.lowercased().hasSuffix(".abc") ? String(file.dropLast(4)) + ".mid" : file + ".mid")
        try OutputFile.check(out, inputs: [file])
        let result = try LessonOpener.read(file, tune: tune)
        if !quiet {
            for w in result.warnings { Console.error("etude: \(safe(file)): warning: \(safe(w.message))") }
        }
        try OutputFile.write(MIDIWriter.write(result.file), to: out, inputs: [file])
    }
}
