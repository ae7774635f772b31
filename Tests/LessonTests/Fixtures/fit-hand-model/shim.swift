// HandModel.swift is compiled alone here; it needs only the Lesson module's Hand.
enum Hand: String, Equatable, Hashable, Sendable, CaseIterable {
    case right, left
    var other: Hand { self == .right ? .left : .right }
}
