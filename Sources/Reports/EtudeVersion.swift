/// Etude's version, as `etude --version` prints it: the same text as the repository's
/// `VERSION` file, which the Debian package is stamped with (a test keeps the two equal), so a
/// learner reporting a problem can say which Etude they run.
public enum EtudeVersion {
    public static let current = "0.1.0"
}
