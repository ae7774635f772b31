/// A fatal problem in ABC text, located at line:column so the author can fix the source.
public struct ABCError: Error, Equatable, Sendable, CustomStringConvertible {
    /// 1-based line and column; 0 when the problem has no single place (e.g. a missing tune).
    public var line: Int
    public var column: Int
    public var message: String
    /// The offending source line, for showing under the message.
    public var context: String

    public init(line: Int, column: Int, message: String, context: String = "") {
        self.line = line
        self.column = column
        self.message = message
        self.context = context
    }

    /// `line:column: message` then the source line, so the error reads like a compiler's.
    public var description: String {
        guard line > 0 else { return message }
        var s = "\(line):\(column): \(message)"
        if !context.isEmpty { s += "\n    \(context)" }
        return s
    }

    /// One line for terminals that show a single line per error.
    public var oneLine: String {
        guard line > 0 else { return message }
        return context.isEmpty ? "\(line):\(column): \(message)" : "\(line):\(column): \(message) in \"\(context)\""
    }
}

/// Something in ABC text that Etude read but does not play, or repaired: never silent.
public struct ABCWarning: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public var message: String

    public init(line: Int, column: Int, message: String) {
        self.line = line
        self.column = column
        self.message = message
    }

    public var description: String { line > 0 ? "\(line):\(column): \(message)" : message }
}
