import ArgumentParser

/// The words every LESSON argument is described with, written once: the formats Etude reads
/// and the catalogue's names for them.
enum LessonArgument {
    static let formats = "a .mid, .abc or MusicXML (.musicxml, .mxl) file"
    static let help = ArgumentHelp("The lesson: \(formats), or a title or id from `etude list`.")
}
