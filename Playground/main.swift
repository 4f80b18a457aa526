// The tour a new user runs first: `swift run Playground`.
//
// For now it shows the Signals layer that the rest of Loft is built on; the query tour comes with the query
// core.

import Loft

print("Loft Playground: a short tour of Signals, the reactive layer under Loft.\n")
for (number, step) in signalsTour.enumerated() {
    print("\(number + 1). \(step.title)")
    for line in step.run() {
        print("   \(line)")
    }
    print()
}
print("Done. Next: read the README's usage section, then `swift test`.")
