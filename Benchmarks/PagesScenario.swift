import Foundation
import Loft

/// (j) `InfiniteQuery.fetchNextPage` with an immediate fetcher of 20-item pages, timed (ten appends, averaged)
/// from the 10th, the 100th and the 1,000th page on. The baseline of each row is the time at page 10 plus copying the whole
/// item array (pages × 20 `Int`s), measured in the same run: within 2× of it, an append costs no more than
/// linear copying as the list grows.
func pagesScenario(_ settings: Settings) -> [Row] {
    let marks = [10, 100, 1_000]
    let repetitions = max(2, settings.repetitions / 2)
    var times: [Int: Double] = [:]
    for mark in marks {
        var best = Double.infinity
        for _ in 0..<repetitions {
            let nanoseconds = runBlocking { () async -> Double in
                let client = QueryClient(scheduler: TestScheduler())
                let feed = InfiniteQuery<Int, [Int]>(
                    key: "feed", initialPageParam: 0,
                    getNextPageParam: { _, _, lastParam, _ in lastParam + 1 },
                    options: QueryOptions(retry: .never), client: client
                ) { page in Array(page * 20..<page * 20 + 20) }
                for _ in 1..<mark {
                    feed.fetchNextPage()
                    await client.waitUntilIdle()
                }
                // Ten appends from the mark on, averaged: one append is too short to time alone.
                let start = ContinuousClock.now
                for _ in 0..<10 {
                    feed.fetchNextPage()
                    await client.waitUntilIdle()
                }
                let elapsed = ContinuousClock.now - start
                precondition(feed.state.value?.pages.count == mark + 9, "every page was appended")
                return Double(elapsed.nanoseconds) / 10
            }
            best = min(best, nanoseconds)
        }
        times[mark] = best
    }
    let base = times[10] ?? 0
    return marks.map { mark in
        let items = Array(0..<(mark * 20))
        let copy = measure(repetitions: settings.repetitions, iterations: 100) {
            for _ in 0..<100 {
                var copied = items
                copied.append(0)
                blackHole(copied)
            }
        }
        return Row(
            scenario: "(j) fetchNextPage of page \(mark.formatted()), 20 items each",
            baselineName: "page 10 + copying \((mark * 20).formatted()) Ints", nanoseconds: times[mark] ?? 0,
            baselineNanoseconds: base + copy, target: .ratio(2))
    }
}
