import Foundation
import Lesson
@testable import LessonLibrary
import Store
import TestSupport
import Testing

/// One Store per process (issue 36 step 2): a library opens its store the first time anything
/// asks and every copy of it shares that store after; a failure is remembered, not retried.
@Suite struct LibraryStoreTests {
    @Test func everyCopyOfALibrarySharesTheStoreItOpenedOnce() throws {
        let dir = try TempDir("etude-library")
        let library = Library(databaseOverride: dir.file("etude.sqlite"))
        let copy = library
        let first = try library.openStore()
        #expect(try copy.openStore() === first)
        #expect(copy.storeIfAvailable === first)
        #expect(try copy.withStore(scan: false) { $0 } === first)
        // What one part remembers through a copy, the next part finds in the same store.
        try LessonFit.keyboard(keys: try KeyboardKeysArgument(parsing: "61"), range: nil, fit: nil, input: .computerKeyboard, library: copy).remember()
        #expect(try first.keyboard(device: "keys")?.keyRange == "61")
        // A new library is a new store (another command, another process).
        #expect(try Library(databaseOverride: dir.file("etude.sqlite")).openStore() !== first)
    }

    @Test func aLibraryThatCannotOpenIsNotTriedAgain() throws {
        let dir = try TempDir("etude-library")
        let library = Library(databaseOverride: dir.path)  // a folder is no database
        #expect(throws: (any Error).self) { try library.openStore() }
        #expect(library.storeIfAvailable == nil)
        let again = #expect(throws: (any Error).self) { try library.withStore(scan: false) { _ in 0 } }
        #expect("\(again.map { "\($0)" } ?? "")".contains("is a folder"))
    }
}
