/// Stops the run: libFuzzer reports the input that got here as a crash and saves it.
func violated(_ rule: String) -> Never {
    fatalError("fuzz rule broken: \(rule)")
}
