import Foundation

// LessonMaker (lesson files), TempDir and Repo come from TestSupport.

func utc() -> Calendar {
    var c = Calendar(identifier: .gregorian)
    c.timeZone = TimeZone(identifier: "UTC") ?? c.timeZone
    return c
}

func date(_ s: String) -> Date {
    let f = ISO8601DateFormatter()
    return f.date(from: s) ?? Date(timeIntervalSince1970: 0)
}
