/// Catalogue metadata carried inside a .mid as text meta events, so a lesson file is
/// self-describing wherever it is copied: `etude:<key>=<value>` in a text event (type 0x01)
/// on the first track at tick 0, e.g. `etude:level=2`, `etude:composer=J. S. Bach`,
/// `etude:description=Two-octave C major scale`. The title is the first track's name.
public struct LessonTags: Equatable, Sendable {
    public var title: String?
    public var composer: String?
    public var level: Int?
    public var description: String?
    /// Every `etude:` key found, including ones this version does not know.
    public var all: [String: String]

    public static let prefix = "etude:"

    public init(title: String? = nil, composer: String? = nil, level: Int? = nil, description: String? = nil) {
        self.title = title
        self.composer = composer
        self.level = level
        self.description = description
        self.all = [:]
    }

    /// Reads the tags from a file: `etude:` text events on any track; the title falls back to
    /// the first named track, the composer to a copyright notice. Note-level annotations
    /// (`Annotation`: fingering, spelling, staves, clefs, bars) are not tags and are passed
    /// over on their first bytes, so a score with thousands of them reads fast.
    public init(file: MIDIFile) {
        self.init()
        var copyright: String?
        for track in file.tracks {
            for e in track.events {
                guard case .meta(let type, let data) = e.kind else { continue }
                if type == MetaType.text {
                    guard Self.isTag(data) else { continue }
                    let text = TextDecoding.display(data)
                    guard text.hasPrefix(Self.prefix), let eq = text.firstIndex(of: "=") else { continue }
                    let key = String(text[text.index(text.startIndex, offsetBy: Self.prefix.count)..<eq])
                    let value = String(text[text.index(after: eq)...])
                    all[key] = value
                } else if type == MetaType.copyright, copyright == nil {
                    copyright = TextDecoding.display(data)
                }
            }
        }
        title = all["title"] ?? file.tracks.lazy.compactMap(\.name).first
        composer = all["composer"] ?? copyright
        level = all["level"].flatMap { Int($0) }
        description = all["description"]
    }

    static let prefixBytes = Array(prefix.utf8)
    static let annotationKeys: [[UInt8]] = ["finger=", "spell=", "hand=", "clef=", "bar="].map { Array($0.utf8) }

    /// `etude:` text that is not a note-level annotation.
    static func isTag(_ data: [UInt8]) -> Bool {
        guard data.count > prefixBytes.count, data.starts(with: prefixBytes) else { return false }
        let rest = data[prefixBytes.count...]
        return !annotationKeys.contains { rest.starts(with: $0) }
    }

    /// Text meta events that write these tags (put them on the first track at tick 0).
    public var events: [MIDIEvent] {
        var pairs: [(String, String)] = []
        if let title { pairs.append(("title", title)) }
        if let composer { pairs.append(("composer", composer)) }
        if let level { pairs.append(("level", String(level))) }
        if let description { pairs.append(("description", description)) }
        return pairs.map { MIDIEvent(tick: 0, .meta(type: MetaType.text, data: Array("\(Self.prefix)\($0.0)=\($0.1)".utf8))) }
    }
}
