import Foundation
import Testing
import TestSupport

/// What the hostile-input rounds share: the built `etude` with its own database, a temporary
/// folder, Ode to Joy copied into it (never the repository's file), and the checks every case
/// makes of what a user sees (`HostileInputTests.expectClean`).
protocol HostileSuite {
    var etude: Etude { get }
    var dir: TempDir { get }
    var lesson: String { get }
}

extension HostileSuite {
    /// The three things a round starts from, in a folder named after it.
    static func setUp(_ name: String) throws -> (etude: Etude, dir: TempDir, lesson: String) {
        let dir = try TempDir(name)
        let lesson = try dir.write("o.mid", [UInt8](try Data(contentsOf: URL(fileURLWithPath: Repo.lesson("level4/ode-to-joy.mid")))))
        return (try Etude(), dir, lesson)
    }

    static func clean(_ r: ProcessResult, status: Int32, message: String? = nil, _ what: String,
                      sourceLocation: SourceLocation = #_sourceLocation) {
        HostileInputTests.expectClean(r, status: status, message: message, what, sourceLocation: sourceLocation)
    }

    /// A file's bytes, nil when it is not there.
    func bytes(_ path: String) -> [UInt8]? { FileManager.default.contents(atPath: path).map { [UInt8]($0) } }
}
