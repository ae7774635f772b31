import Foundation
import Testing
import TestSupport

/// Every command that takes a lesson takes it the same four ways: a .mid, an .abc, a title (or
/// a unique start of one) and an id prefix; a built-in lesson's .abc is the same lesson as its .mid.
@Suite struct LessonNamingTests {
    static let mid = Repo.lesson("level4/ode-to-joy.mid")
    static let abc = Repo.lesson("level4/ode-to-joy.abc")

    @Test func everyCommandTakesAFileATitleAnIdPrefixOrTheAbc() throws {
        let etude = try Etude()
        let listed = try etude.run(["list", "--json"])
        let all = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]], "\(listed.stderr)")
        let ode = try #require(all.first { $0["title"] as? String == "Ode to Joy" })
        let id = try #require(ode["id"] as? String)
        let names = [Self.mid, Self.abc, "Ode to Joy", "ode to", String(id.prefix(8))]
        let dir = try TempDir()
        for (n, name) in names.enumerated() {
            for args in [["info", name], ["events", name], ["export", name, "-o", dir.file("x\(n).mid")], ["stats", name],
                         ["loops", name], ["score", name, "--bars", "1-1", "--width", "60"],
                         ["render", name, "-o", dir.file("x\(n).wav"), "--tail", "0"], ["loop", name, "1-2", "--dry-run"]] {
                let r = try etude.run(args)
                #expect(r.status == 0, "\(args): \(r.stderr)")
                #expect(!r.stderr.contains("no such"), "\(args): \(r.stderr)")
            }
        }
        // One catalogue entry: a favourite set through the .abc is the .mid's, and stats agree.
        #expect(try etude.run(["fav", "add", Self.abc]).status == 0)
        let favs = try etude.run(["fav", "list", "--json"])
        let list = try #require(try JSONSerialization.jsonObject(with: Data(favs.stdout.utf8)) as? [[String: Any]], "\(favs.stderr)")
        #expect(list.count == 1 && list.first?["id"] as? String == id, "\(favs.stdout)")
        let again = try etude.run(["fav", "add", Self.mid])
        #expect(try JSONSerialization.jsonObject(with: Data(try etude.run(["fav", "list", "--json"]).stdout.utf8)) as? [[String: Any]] != nil)
        #expect(again.status == 0)
        let twice = try etude.run(["fav", "list"])
        #expect(twice.stdout.split(separator: "\n").count == 1, "one lesson, not two: \(twice.stdout)")
    }

    @Test func aMistypedPathSaysNoSuchFileAndAnUnknownTitleSaysSo() throws {
        let etude = try Etude()
        let path = try etude.run(["info", "/nowhere/song.mid"])
        #expect(path.status == 1 && path.stderr == "etude: /nowhere/song.mid: no such file\n", "\(path.stderr)")
        let title = try etude.run(["info", "No Such Piece Anywhere"])
        #expect(title.status == 1 && title.stderr.contains("no such lesson or file; see `etude list`"), "\(title.stderr)")
    }
}
