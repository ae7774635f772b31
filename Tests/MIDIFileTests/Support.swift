import Foundation
import TestSupport
@testable import MIDIFile

/// The shared edge-case corpus (beside the repository, or `$ETUDE_CORPUS`).
enum Corpus {
    static func files() -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: Repo.jazzSoft.path)) ?? []
        return names.filter { $0.hasSuffix(".mid") }.sorted().map { Repo.jazzSoft.appendingPathComponent($0) }
    }

    static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: Repo.jazzSoft.appendingPathComponent(name)))
    }
}
