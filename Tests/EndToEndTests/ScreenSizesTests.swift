import Foundation
import Testing
import TestSupport

/// The practice screen (falling notes, staff, both) and the browser at 60×20, 80×24 and
/// 200×50 in a real terminal (tmux): nothing cut — the status keeps the hand and the mode,
/// the footer its help and quit keys, a title shortened only after a whole word, every staff
/// line of the grand staff above the keyboard — and no line past the width (issue 39).
@Suite(.serialized) struct ScreenSizesTests {
    static let sizes = [(60, 20), (80, 24), (200, 50)]
    static let title = "Für Elise, WoO 59 (opening theme)"

    /// Every line fits the width, the footer keeps `? help` and `q quit`, and any `…` follows a
    /// whole word of `words`.
    static func check(_ screen: String, width: Int, words: Set<String>, _ what: String) {
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for line in lines { #expect(line.count <= width, "\(what): a line past \(width) columns: \(line)") }
        let footer = lines.last { !$0.trimmingCharacters(in: .whitespaces).isEmpty } ?? ""
        #expect(footer.contains("? help") && (footer.contains("q quit") || footer.contains("Esc quit")), "\(what): footer \(footer)")
        for line in lines where line.contains("…") {
            for piece in line.components(separatedBy: "…").dropLast() {
                let last = piece.split(separator: " ").last.map(String.init) ?? ""
                #expect(last.isEmpty || words.contains(last) || words.contains(last + ","), "\(what): cut mid-word at \"\(last)…\" in \(line)")
            }
        }
    }

    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func thePracticeScreenKeepsEverythingAtEverySize() throws {
        let etude = try Etude()
        let words = Set(Self.title.split(separator: " ").map(String.init) + ["silent", "(no", "audio)"])
        for (w, h) in Self.sizes {
            let pane = try TmuxPane(etude: etude, ["practice", Repo.lesson("level5/fur-elise.mid")], width: w, height: h)
            var screen = pane.waitFor { $0.contains("mode: watch") }
            for view in ["falling notes", "staff", "both"] {
                #expect(screen.contains("hand: both") && screen.contains("mode: watch"), "\(w)×\(h) \(view): the status keeps hand and mode: \(screen)")
                Self.check(screen, width: w, words: words, "\(w)×\(h) \(view)")
                if view == "both" {
                    // Both staves whole: ten staff lines (each starts with a line-left glyph).
                    let staffLines = screen.split(separator: "\n").filter { l in
                        l.contains("├") || l.contains("┌") || l.contains("└")
                    }
                    #expect(staffLines.count >= 10, "\(w)×\(h): every staff line shown above the keyboard: \(screen)")
                    #expect(screen.contains("⎧") && screen.contains("⎩"), "\(w)×\(h): the brace's ends: \(screen)")
                }
                if view != "both" {
                    try pane.keys("v")
                    usleep(600_000)
                    screen = pane.waitFor(5) { $0.contains("mode: watch") && ($0.contains("⎧") || view == "staff") }
                }
            }
            try pane.keys("q")
            #expect(pane.exitStatus() == 0, "\(pane.stderr)")
        }
    }

    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func theBrowserKeepsEverythingAtEverySize() throws {
        let etude = try Etude()
        var words = Set<String>()
        let list = try etude.run("list", "--json").stdout
        if let rows = try JSONSerialization.jsonObject(with: Data(list.utf8)) as? [[String: Any]] {
            for r in rows {
                for key in ["title", "composer"] { for word in ((r[key] as? String) ?? "").split(separator: " ") { words.insert(String(word)) } }
            }
        }
        for (w, h) in Self.sizes {
            let pane = try TmuxPane(etude: etude, [], width: w, height: h)
            let screen = pane.waitFor { $0.contains("Etude — lessons") && $0.contains("▸") }
            #expect(screen.contains("▸"), "\(w)×\(h): \(screen)")
            Self.check(screen, width: w, words: words.union(["—", "Etude", "lessons"]), "browser \(w)×\(h)")
            try pane.keys("C-q")
            _ = pane.waitFor { $0.contains("EXIT=") }
        }
    }
}
