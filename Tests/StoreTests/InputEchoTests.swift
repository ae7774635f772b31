import Foundation
import Store
import Testing
import TestSupport

/// `--echo` remembered per input device (migration v10-echo): nothing until chosen, the latest
/// choice wins, kept across opening the file again, devices apart.
@Suite struct InputEchoTests {
    @Test func theChoiceIsKeptPerDeviceAcrossOpenings() throws {
        let dir = try TempDir()
        let path = dir.file("etude.sqlite")
        let store = try Store.open(path: path)
        #expect(try store.inputEcho(device: "jack:etude:midi_in") == nil)
        try store.saveInputEcho(false, device: "jack:etude:midi_in")
        try store.saveInputEcho(true, device: "midi:Digital Piano")
        try store.saveInputEcho(true, device: "jack:etude:midi_in")
        try store.saveInputEcho(false, device: "jack:etude:midi_in")
        let again = try Store.open(path: path)
        #expect(try again.inputEcho(device: "jack:etude:midi_in") == false)
        #expect(try again.inputEcho(device: "midi:Digital Piano") == true)
        #expect(throws: StoreError.self) { try again.saveInputEcho(true, device: "") }
    }
}
