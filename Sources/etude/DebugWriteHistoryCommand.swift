import ArgumentParser
import Foundation
import Reports
import Store

/// Developer tool for the crash-safety tests: commits passes one by one and prints each id
/// only after its commit returned, so a test can SIGKILL the process and check every printed row.
struct DebugWriteHistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "debug-write-history",
        abstract: "Write test history rows one transaction at a time (for crash tests).",
        shouldDisplay: false
    )

    @Option(help: "How many rows.") var count = 100
    @Option(help: "A tag stored as the pass mode, to tell writers apart.") var tag = "debug"
    @Option(name: .customLong("pause-ms"), help: "Sleep between commits (ms), so a test can kill mid-run.") var pauseMs = 0
    @OptionGroup var store: StoreOptions

    func run() throws {
        try store.library.withStore(scan: false) { s in
            let id = SHA256.hex(Array("etude debug lesson".utf8))
            try s.register(LessonInfo(id: id, title: "Debug lesson"))
            for i in 0..<count {
                let rowID = try s.recordPass(PassRecord(lessonID: id, startedAt: Date(), mode: PassMode(rawValue: tag), hand: .both,
                                                        tempoPercent: 100, durationSeconds: Double(i), score: Double(i % 101)))
                Console.out("\(rowID)\n")
                if pauseMs > 0 { usleep(UInt32(min(pauseMs, 10_000)) * 1000) }
            }
        }
    }
}
