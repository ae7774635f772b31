import Foundation
import Synth

/// Shared wiring for the sound commands: finding the SoundFont, showing slow-load progress,
/// and FluidSynth's captured log (only with --verbose).
enum SoundSetup {
    /// The SoundFont to use, or `etude: …` naming the paths tried and the package to install.
    static func soundFont(_ explicit: String?) throws -> String {
        do {
            return try SoundFontLocator(explicit: explicit).locate()
        } catch {
            throw EtudeFailure(error.message)
        }
    }

    /// Progress shown while a large SoundFont loads (> 0.5 s), on a terminal only.
    static func slowLoadReporter(_ path: String) -> (@Sendable (Double) -> Void)? {
        guard isatty(STDERR_FILENO) != 0 else { return nil }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int).flatMap { $0 } ?? 0
        let name = TextSafe.name((path as NSString).lastPathComponent)
        return { elapsed in
            Console.errorPart("\rloading SoundFont \(name) (\(size / 1_000_000) MB)… \(String(format: "%.1f", elapsed)) s\u{1B}[K")
        }
    }

    /// Ends a progress line started by `slowLoadReporter` (if it printed anything).
    static func endProgressLine() {
        if isatty(STDERR_FILENO) != 0 { Console.errorPart("\r\u{1B}[K") }
    }

    /// Prints FluidSynth's captured log when asked, always clears it.
    static func flushLog(verbose: Bool) {
        let log = FluidSynthLog.take()
        if verbose && !log.isEmpty {
            for line in log.split(separator: "\n") { Console.error(TextSafe.name(String(line))) }
        }
    }
}

/// File names and library text made safe for the terminal.
enum TextSafe {
    static func name(_ s: String) -> String {
        String(String.UnicodeScalarView(s.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F && !(0x80..<0xA0).contains($0.value) }))
    }
}

extension Console {
    /// Writes to stderr without a newline (progress lines).
    static func errorPart(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
