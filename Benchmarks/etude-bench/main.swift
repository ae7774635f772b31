import Foundation
import MIDIFile

// Subcommands: each lives in its own file and returns an exit status.
let benchArguments = Array(CommandLine.arguments.dropFirst())
switch benchArguments.first {
case "render":
    exit(renderBenchmark(arguments: Array(benchArguments.dropFirst())))
case "jitter":
    exit(dispatchJitterBenchmark(arguments: Array(benchArguments.dropFirst())))
case nil:
    // No subcommand: run every benchmark.
    var status = renderBenchmark(arguments: [])
    status = max(status, dispatchJitterBenchmark(arguments: []))
    exit(status)
default:
    print("usage: etude-bench [render [SOUNDFONT] | jitter [SECONDS]]")
    exit(2)
}
