print("Benchmarks")
