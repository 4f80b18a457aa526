// The tour a new user runs first: `swift run Playground` (see PlaygroundTour for its options).
import Foundation
import LoftPlayground

exit(await PlaygroundTour.run(arguments: CommandLine.arguments))
