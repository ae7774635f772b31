import Foundation
@testable import MIDIFile

/// Where the shared edge-case corpus lives (beside the repository).
enum Corpus {
    static let repoRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// `$ETUDE_CORPUS` when set (make test sets it), else `../shared/corpus/jazz-soft`.
    static let jazzSoft: URL = ProcessInfo.processInfo.environment["ETUDE_CORPUS"].map { URL(fileURLWithPath: $0) }
        ?? repoRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus/jazz-soft")

    static func files() -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: jazzSoft.path)) ?? []
        return names.filter { $0.hasSuffix(".mid") }.sorted().map { jazzSoft.appendingPathComponent($0) }
    }

    static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: jazzSoft.appendingPathComponent(name)))
    }
}

/// Builds SMF bytes by hand for tests, so each test states exactly the bytes it feeds in.
struct SMFBuilder {
    var format = 1
    var division: [UInt8] = [0x01, 0xE0]  // 480 tpq
    var declaredTracks: Int?
    var tracks: [[UInt8]] = []

    func bytes() -> [UInt8] {
        var out: [UInt8] = Array("MThd".utf8) + [0, 0, 0, 6, 0, UInt8(format)]
        let n = declaredTracks ?? tracks.count
        out += [UInt8(n >> 8), UInt8(n & 0xFF)] + division
        for t in tracks {
            out += Array("MTrk".utf8)
            let l = t.count
            out += [UInt8(l >> 24 & 0xFF), UInt8(l >> 16 & 0xFF), UInt8(l >> 8 & 0xFF), UInt8(l & 0xFF)]
            out += t
        }
        return out
    }

    static let endOfTrack: [UInt8] = [0x00, 0xFF, 0x2F, 0x00]
}
