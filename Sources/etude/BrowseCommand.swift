import ArgumentParser
import Devices
import Foundation
import FrontEnd
import Lesson
import MIDIFile
import Screen
import Store
import Terminal

/// `etude` (no arguments, on a terminal) or `etude browse`: the full-screen lesson browser.
struct BrowseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "browse",
        abstract: "Browse the lessons full screen: search as you type, filter, practise (also `etude` alone).",
        discussion: """
        Keys: type to search (Backspace deletes, Ctrl-U clears); ↑/↓ PgUp/PgDn Home/End move; Enter asks how to practise the lesson (mode ← →, hand ↑ ↓, then Enter; remembered per lesson) or resumes; Tab or F2 all/favourites; Ctrl-L or F3 level; Ctrl-F or F4 favourite on/off; Ctrl-S or F5 stats; Ctrl-R or F6 routines; ? or F1 help; Esc clears the search, then quits; Ctrl-Q, F10 or Ctrl-C quit.

        Examples:
          etude
          etude browse --db lessons.sqlite
        """
    )

    @OptionGroup var instrument: InstrumentOptions
    @OptionGroup var playingOptions: PlayingOptions
    @OptionGroup var store: StoreOptions

    func run() throws {
        // The instrument for what the browser starts (your `etude setup`'s unless given here).
        var playing = try playingOptions.playing(mode: .watch)
        playing.library = store.library
        let sound = try instrument.applied(to: LiveSound())
        let status = try BrowserApp.run(store.library, sound: sound, playing: playing)
        if status != 0 { throw ExitCode(status) }
    }
}

