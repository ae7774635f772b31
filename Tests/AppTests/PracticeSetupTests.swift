@testable import App
import Foundation
import Lesson
@testable import LessonLibrary
@testable import Reports
import Store
import TestSupport
import Testing

/// `PracticeSetup` (issue 36 step 3): the lesson read and fitted once, the plan built from that
/// lesson and validated once, whichever front end asks.
@Suite struct PracticeSetupTests {
    static var ode: String { Repo.lesson("level4/ode-to-joy.mid") }

    @Test func anAskedKeyIsRememberedAnEntrysOwnIsNot() throws {
        let dir = try TempDir("etude-setup")
        let library = Library(databaseOverride: dir.file("etude.sqlite"))
        let asked = try PracticeSetup.make(.init(path: Self.ode, key: .asked(.semitones(2)), library: library) { _ in PracticePlan() })
        #expect(asked.opened.lesson.title.contains("+2"), "\(asked.opened.lesson.title)")
        #expect(asked.history != nil, "passes go to the history")
        let id = try library.openStore().catalogue(fileAt: Self.ode).id
        #expect(try library.openStore().transpose(lessonID: id) == "+2")
        // A routine entry's own key is used, and the lesson's remembered one is left as it was.
        let fixed = try PracticeSetup.make(.init(path: Self.ode, key: .fixed(.semitones(-3)), library: library, history: false) { _ in PracticePlan() })
        #expect(fixed.opened.lesson.title.contains("-3") && fixed.history == nil)
        #expect(try library.openStore().transpose(lessonID: id) == "+2")
    }

    @Test func thePlanIsBuiltFromTheOpenedLessonAndCheckedAfterTheKeyboardFits() throws {
        let dir = try TempDir("etude-setup")
        let library = Library(databaseOverride: dir.file("etude.sqlite"))
        var seen: Lesson?
        let setup = try PracticeSetup.make(.init(path: Self.ode, key: .asked(.semitones(2)), library: library, history: false) { lesson in
            seen = lesson
            return PracticePlan(hands: .right)
        })
        #expect(seen?.title == setup.opened.lesson.title, "the plan sees the lesson as transposed")
        // A 25-key keyboard far above the tune leaves nothing to play: refused in the front end's words, nothing remembered.
        var request = PracticeSetup.Request(path: Self.ode, keyboard: .init(range: try KeyboardRangeArgument(parsing: "C7-C8"), input: .computerKeyboard),
                                            library: library, history: false) { _ in PracticePlan(hands: .right) }
        request.words = { "entry: \($0.message)" }
        #expect(throws: EtudeFailure.self) { try PracticeSetup.make(request) }
        do { _ = try PracticeSetup.make(request) } catch let e as EtudeFailure { #expect(e.message.hasPrefix("entry: "), "\(e.message)") }
        #expect(try library.openStore().keyboard(device: "keys") == nil, "a keyboard that does not fit is not remembered")
    }
}
