import Foundation
import Reports
import Store

/// `--guide on|off`: whether the learner hears their own part, quietly and on Etude's synth
/// only, while they play (wait, play, memory). Off unless asked: a learner who plays is never
/// given the answer, and their instrument never plays it for them. Remembered per lesson, like
/// its transposition; the practice screen's `G` turns it on and off (and remembers that too).
public enum Guide {
    /// `--guide on|off` as typed, checked where it is typed.
    public struct Setting: OnOffSetting {
        public static let hint = "use on (hear your part quietly while you play) or off (Etude never sounds it)"
        public let on: Bool
        public init(on: Bool) { self.on = on }
    }

    /// The guide for the lesson at `path`: `given` (then remembered), else the one remembered,
    /// else off; and how to remember a later change (the screen's `G`). A library that cannot
    /// be opened remembers nothing and stops nothing.
    public static func resolve(_ given: Bool?, path: String, library: Library?) -> (on: Bool, remember: @Sendable (Bool) -> Void) {
        guard let library, let store = library.storeIfAvailable, let id = try? store.catalogue(fileAt: path).id else {
            return (given ?? false, { _ in })
        }
        if let given { try? store.saveGuide(given, lessonID: id) }
        let on = given ?? ((try? store.guide(lessonID: id)) ?? nil) ?? false
        return (on, { value in
            // The screen thread's one write, when the learner presses `G`.
            if let store = library.storeIfAvailable { try? store.saveGuide(value, lessonID: id) }
        })
    }
}
