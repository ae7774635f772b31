import Foundation
import MIDIFile

/// A MusicXML file Etude cannot read, in one line (`line:column: message` when it has a place).
public struct MusicXMLError: Error, Equatable, Sendable, CustomStringConvertible {
    /// 1-based; 0 when the problem has no single place.
    public var line: Int
    public var column: Int
    public var message: String

    public init(line: Int = 0, column: Int = 0, _ message: String) {
        self.line = line
        self.column = column
        self.message = message
    }

    /// `12:5: not well-formed XML: …`, or the message alone.
    public var oneLine: String {
        let text = TextDecoding.sanitize(message)
        return line > 0 ? "\(line):\(column): \(text)" : text
    }

    public var description: String { oneLine }
}

/// Something in a score that Etude read differently from the page, or left out: never silent.
public struct MusicXMLWarning: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// 1-based line of the element concerned; 0 when the warning sums up many.
    public var line: Int
    public var message: String

    public init(line: Int = 0, _ message: String) {
        self.line = line
        self.message = message
    }

    public var description: String {
        let text = TextDecoding.sanitize(message)
        return line > 0 ? "line \(line): \(text)" : text
    }
}

/// MusicXML 2.0–4.0 scores (`score-partwise`, `score-timewise`; `.musicxml`/`.xml` text or
/// compressed `.mxl`) as the lesson model every reader produces: a `MIDIFile` whose notes are
/// the performance (repeats, endings, D.C./D.S./Fine/Coda expanded) and whose `etude:`
/// annotations keep what MIDI cannot say.
///
/// The file is format 1:
/// - track 1, the conductor: the title as track name, `etude:title=`/`etude:composer=`
///   (`<work-title>`/`<movement-title>`, `<creator type="composer">`), tempo (`<sound tempo>`,
///   else a metronome mark, else 120), time and key signatures at every change in playing order,
///   a marker per rehearsal mark and section word (intro, verse, chorus, trio, coda …), and
///   `etude:bar=N` at the first tick of every bar played, N the number printed on it (a pickup
///   is 0; a bar played again through a repeat has its number again);
/// - then one track per staff of each pitched part (a two-staff part gives two tracks, staff 1
///   tagged `etude:hand=right`, staff 2 `etude:hand=left`), named after `<part-name>`, with the
///   part's program (`<midi-instrument>`, else piano) on a channel of its own, `etude:clef=` at
///   every clef change, `etude:ottava=` where an `<octave-shift>` starts or stops,
///   `etude:spell=` and `etude:finger=` for its notes, `etude:value=` for each head as written
///   (`<type>`, dots, tuplet; a tied note has one per head), `etude:marks=` for its
///   articulations and fermata, sustain (CC64) from pedal marks. A note printed on staff 2 is on the staff-2 track whichever voice it is in.
///
/// Grace notes are played, short (a 32nd, at most half the note they lead to): a slashed one
/// (acciaccatura) just before the beat, an unslashed one (appoggiatura) on the beat with its
/// main note after it; each carries `etude:grace=` (drawn small, never required of a learner).
/// Ties are merged; staccato (and staccatissimo, spiccato) halve (quarter) the sounding length;
/// dynamics marks and `<sound dynamics>` set velocities; transposing parts (`<transpose>`)
/// sound at concert pitch and are spelled at concert pitch (the written spelling moved by the
/// part's diatonic interval, so the spelling names the key that sounds); unpitched and
/// percussion parts are left out with a warning. Elements that change the sound but are not
/// played (ornaments, fermatas, arpeggios, chord symbols, measure-repeat signs …) are named
/// once in a warning; `strict` refuses a score with any warning.
public enum MusicXMLImport {
    /// A MusicXML score (text or .mxl) as a lesson file. `bytes` may be either form: a zip
    /// archive is recognised by its signature, whatever the file is called.
    public static func midiFile(fromBytes bytes: [UInt8], strict: Bool = false, limits: MusicXMLLimits = MusicXMLLimits())
        throws(MusicXMLError) -> (file: MIDIFile, warnings: [MusicXMLWarning]) {
        try midiFile(fromBytes: bytes, strict: strict, limits: limits, asWritten: false)
    }

    static func midiFile(fromBytes bytes: [UInt8], strict: Bool = false, limits: MusicXMLLimits = MusicXMLLimits(), asWritten: Bool)
        throws(MusicXMLError) -> (file: MIDIFile, warnings: [MusicXMLWarning]) {
        if MXLContainer.isZip(bytes) {
            let score = try MXLContainer.rootfile(bytes, limits: limits)
            return try midiFile(fromXML: score, strict: strict, limits: limits, asWritten: asWritten)
        }
        return try midiFile(fromXML: bytes, strict: strict, limits: limits, asWritten: asWritten)
    }

    /// A MusicXML text document (UTF-8, UTF-16 or any encoding it declares) as a lesson file.
    public static func midiFile(fromXML bytes: [UInt8], strict: Bool = false, limits: MusicXMLLimits = MusicXMLLimits())
        throws(MusicXMLError) -> (file: MIDIFile, warnings: [MusicXMLWarning]) {
        try midiFile(fromXML: bytes, strict: strict, limits: limits, asWritten: false)
    }

    static func midiFile(fromXML bytes: [UInt8], strict: Bool, limits: MusicXMLLimits, asWritten: Bool)
        throws(MusicXMLError) -> (file: MIDIFile, warnings: [MusicXMLWarning]) {
        if let root = Prolog.scan(bytes).rootName, !isScoreRoot(root) {
            throw unknownRoot(root)
        }
        let tree = try XMLTreeReader.read(bytes, limits: limits)
        guard let rootTag = tree.tag(tree.root), rootTag == .scorePartwise || rootTag == .scoreTimewise else {
            throw unknownRoot(tree.name(tree.root))
        }
        var reader = ScoreReader(tree: tree, limits: limits)
        let score = try reader.read()
        let performance = try Performance(score: score, limits: limits, asWritten: asWritten)
        var warnings = score.warnings + performance.warnings
        let file = MarkedDynamics.shapingHairpins(try MIDIBuilder.build(score: score, performance: performance, limits: limits, warnings: &warnings))
        if strict, let first = warnings.first {
            throw MusicXMLError(line: first.line, column: first.line > 0 ? 1 : 0, "\(first.message) (strict mode)")
        }
        return (file, warnings)
    }

    /// Whether a file's bytes are a MusicXML score: an .mxl archive (by its zip signature) or
    /// XML whose root element is `score-partwise` or `score-timewise`. Reads only the prolog,
    /// so a folder of other `.xml` files is sorted cheaply.
    public static func isMusicXML(_ bytes: [UInt8]) -> Bool {
        if MXLContainer.isZip(bytes) { return true }
        return Prolog.scan(bytes).rootName.map(isScoreRoot) ?? false
    }

    /// The root element's name of an XML document (nil when none is found), for messages.
    public static func rootElement(of bytes: [UInt8]) -> String? {
        Prolog.scan(bytes).rootName
    }

    static func isScoreRoot(_ name: String) -> Bool {
        name == "score-partwise" || name == "score-timewise"
    }

    static func unknownRoot(_ name: String) -> MusicXMLError {
        let shown = String(TextDecoding.sanitize(name).prefix(40))
        if shown == "opus" {
            return MusicXMLError("an <opus> lists scores but holds no music; open one of the scores it names")
        }
        return MusicXMLError("the root element is <\(shown)>, not a MusicXML score (<score-partwise> or <score-timewise>)")
    }
}
