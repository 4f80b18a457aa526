import Foundation
import Loft
import LoftDevtools
import Testing

/// The README's example, compiled and run: the check in CI fails when a ```swift block of the README is not,
/// line for line, in this file.
@Suite struct ReadmeExamplesTests {
    @Test("the README's use: mounted on a client, its address printed, unmounted")
    func use() async throws {
        let client = QueryClient()

        let devtools = try await LoftDevtools.mount(on: client)
        print("devtools: \(devtools.url)")
        // ... when the client is done with:
        await devtools.unmount()

        #expect(devtools.url.host == "127.0.0.1" && devtools.url.port != 0)
    }
}
