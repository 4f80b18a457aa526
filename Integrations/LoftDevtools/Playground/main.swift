// The root package's Playground tour with the devtools to mount: `--devtools` serves them on 127.0.0.1 for
// the tour's client and prints their address; they stay open after the tour until Return is pressed.
//
//     swift run LoftDevtoolsPlayground --devtools [--api URL] [--cache-dir DIR]
import Foundation
import LoftDevtools
import LoftPlayground

exit(
    await PlaygroundTour.run(arguments: CommandLine.arguments) { client in
        let devtools = try await LoftDevtools.mount(on: client)
        return (devtools.url.absoluteString, { await devtools.unmount() })
    })
