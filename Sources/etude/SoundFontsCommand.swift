import ArgumentParser
import Devices
import Foundation
import Reports
import Synth

struct SoundFontsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soundfonts",
        abstract: "List the SoundFonts Etude can find, in search order, and which one wins.",
        discussion: """
        Order: --soundfont, $ETUDE_SOUNDFONT, SoundFonts/*.sf2|sf3 in the repository,
        $XDG_DATA_HOME/etude/soundfonts, /usr/share/sounds/sf2/default-GM.sf2,
        /usr/share/sounds/sf2/*.sf2, /usr/share/soundfonts.
        """
    )

    @Option(help: "A SoundFont to check first, as `play`/`render` would.") var soundfont: String?

    func run() throws {
        let locator = SoundFontLocator(explicit: soundfont)
        let all = locator.candidates()
        let winner = try? locator.locate()
        for c in all {
            let mark = c.path == winner ? "*" : " "
            let status = c.problem.map { " — \($0)" } ?? ""
            Console.out("\(mark) \(safe(c.path))  [\(c.origin.rawValue)]\(status)\n")
        }
        if let winner {
            Console.out("audio output: \(LiveSound().check().line)\n")
            Console.out("using \(safe(winner))\n")
        } else {
            do { _ = try locator.locate() } catch { throw EtudeFailure(error.message) }
        }
    }
}
