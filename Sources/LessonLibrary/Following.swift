import Foundation
import Lesson
import Reports
import Store

/// `--follow`: whether Etude's part keeps the learner's tempo in a practice session — as asked
/// (then remembered for the lesson), else as last asked for that lesson. Asked where it means
/// nothing (watch or wait mode, a lesson with no part for Etude) it is one line; remembered, it
/// simply stays off there.
public enum Following {
    public static func resolve(_ given: Bool?, mode: PracticeMode, plan: PracticePlan, lesson: Lesson, path: String,
                               library: Library?) throws -> Bool {
        let problem = plan.followProblem(mode: mode, in: lesson)
        if given == true, let problem { throw EtudeFailure(problem.message) }
        guard let store = library?.storeIfAvailable else { return given ?? false }
        guard let id = try? store.catalogue(fileAt: path).id else { return given ?? false }
        if let given {
            try? store.saveFollow(lessonID: id, given)
            return given
        }
        let remembered = ((try? store.follow(lessonID: id)) ?? nil) ?? false
        return remembered && problem == nil
    }
}
