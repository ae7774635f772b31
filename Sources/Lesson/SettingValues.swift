/// The practice settings that a command line, a routine entry or a saved loop gives as text,
/// each read by one initializer whose rule is `PracticePlan`'s parser (the errors name the
/// setting, so every front end words them alike). The command line makes them option types.
extension PracticePlan.Hands {
    /// `left`, `right`, `both` (also `l`, `r`, `lh`, `rh`).
    public init(parsing text: String) throws(PlanError) { self = try PracticePlan.parseHands(text) }
}

extension PracticePlan.OtherHand {
    /// The words the other hand's setting takes, in the order help lists them.
    public static let names = ["play", "quiet", "mute"]

    /// `play`, `quiet` or `mute`.
    public init(parsing text: String) throws(PlanError) { self = try PracticePlan.parseOtherHand(text) }

    /// "play", "quiet" or "mute": the word `--other`, saved loops and the status line use.
    public var name: String {
        switch self {
        case .play: return "play"
        case .quiet: return "quiet"
        case .mute: return "mute"
        }
    }
}

/// Stored (saved loops, the resume state) as its word: "play", "quiet" (the default factor) or
/// "mute"; "hide", which older versions saved, reads as "mute". Any other word does not decode,
/// so the store leaves the row out and says so once, as for every damaged row.
extension PracticePlan.OtherHand: Codable {
    public init(from decoder: any Decoder) throws {
        let word = try decoder.singleValueContainer().decode(String.self)
        switch word.lowercased() {
        case "hide": self = .mute
        default:
            do { self = try PracticePlan.parseOtherHand(word) } catch {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.message))
            }
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .play: try c.encode("play")
        case .quiet: try c.encode("quiet")
        case .mute: try c.encode("mute")
        }
    }
}

extension PracticePlan.Repeat {
    /// `N` (at least 1) or `forever`.
    public init(parsing text: String) throws(PlanError) { self = try PracticePlan.parseRepeat(text) }
}

extension PracticePlan.SpeedTrainer {
    /// `START:TARGET:STEP` in percent, e.g. `60:100:10` (the final slow pass is a separate flag).
    public init(parsing text: String) throws(PlanError) { self = try PracticePlan.parseSpeedTrainer(text) }
}

/// The metronome's volume, 0–100 % (`80%` or `80`).
public struct MetronomeVolume: Equatable, Sendable, CustomStringConvertible {
    public static let range: ClosedRange<Double> = 0...100
    public let percent: Double

    public init(parsing text: String) throws(PlanError) {
        let v = try PracticePlan.parsePercent(text, setting: .metronomeVolume)
        guard Self.range.contains(v) else { throw PlanError(.metronomeVolume, text, "use 0–100%") }
        percent = v
    }

    /// 0–1, as `PracticePlan.Metronome.volume` takes it.
    public var fraction: Double { percent / 100 }
    public var description: String { "\(NumberText.short(percent))%" }
}
