import Foundation

/// A private PulseAudio server for one test: its own runtime folder, null sinks by name (a
/// sink's `.monitor` is a microphone that hears what is played into the sink), stopped on
/// `stop()` or deinit. The environment to run clients with is `environment`.
public final class PrivatePulseAudio: @unchecked Sendable {
    public let environment: [String: String]
    private let pid: Int32
    private let folder: TempDir

    /// Starts `pulseaudio` with the given null sinks (the first is the default sink); nil with
    /// the reason when it did not start.
    public static func start(sinks: [String]) throws -> (server: PrivatePulseAudio?, error: String) {
        guard let pulseaudio = Tools.which("pulseaudio") else { return (nil, "pulseaudio is not installed") }
        let folder = try TempDir("etude-pulse")
        var env = ProcessInfo.processInfo.environment
        env["XDG_RUNTIME_DIR"] = folder.path
        env["HOME"] = folder.path
        env.removeValue(forKey: "PULSE_SERVER")
        var args = ["-D", "-n", "--exit-idle-time=-1", "--use-pid-file=yes", "--disable-shm=yes"]
        args += sinks.map { "--load=module-null-sink sink_name=\($0)" }
        args.append("--load=module-native-protocol-unix")
        let daemon = try Spawned(pulseaudio, args, environment: env)
        _ = daemon.wait(timeout: 60)
        let pidText = (try? String(contentsOfFile: folder.path + "/pulse/pid", encoding: .utf8)) ?? ""
        guard let pid = Int32(pidText.trimmingCharacters(in: .whitespacesAndNewlines)) else { return (nil, "pulseaudio did not start: \(daemon.stderr)") }
        return (PrivatePulseAudio(environment: env, pid: pid, folder: folder), "")
    }

    private init(environment: [String: String], pid: Int32, folder: TempDir) {
        self.environment = environment
        self.pid = pid
        self.folder = folder
    }

    public func stop() {
        kill(pid, SIGTERM)
        _ = eventually(5) { kill(pid, 0) != 0 }
    }

    deinit { stop() }
}
