/// A growable array kept in segments of a fixed size: appending never moves what is stored, and dropping the
/// front frees whole segments. The mutation cache's table of records keeps every call until `gcTime` after it
/// settled; in one contiguous array, each time it grew it copied every record into memory the system had to
/// map afresh, which cost a busy client more than its calls' own work.
///
/// **Behavior**
/// - Indices run from 0 to `count - 1`, as in an array; `removeFirst(_:)` shifts them down.
/// - A segment is made with room for `segmentSize` elements and filled by appending: one allocation of the
///   allocator's small sizes, reused by the next segment once a dropped one is freed.
struct SegmentedSlots<Element: Sendable>: Sendable {
    /// Elements per segment (a power of two).
    static var segmentSize: Int { 64 }

    private var segments: [[Element]] = []
    /// Where index 0 is in the first segment.
    private var start = 0
    /// What a dropped slot holds until its segment goes (so that it keeps nothing alive).
    private let empty: Element
    private(set) var count = 0

    init(empty: Element) {
        self.empty = empty
    }

    var isEmpty: Bool { count == 0 }

    /// How many segments are kept (for tests).
    var segmentCount: Int { segments.count }

    /// Where the element at `index` is stored; traps when `index` is out of range, as an array does.
    @inline(__always)
    private func position(of index: Int) -> (segment: Int, offset: Int) {
        precondition(index >= 0 && index < count, "SegmentedSlots index out of range")
        let physical = start + index
        return (physical / Self.segmentSize, physical % Self.segmentSize)
    }

    subscript(index: Int) -> Element {
        get { read(index) { $0 } }
        set { update(index) { $0 = newValue } }
    }

    /// Reads the element at `index` where it is stored (nothing is copied out).
    @inline(__always)
    func read<Result>(_ index: Int, _ body: (borrowing Element) -> Result) -> Result {
        let (segment, offset) = position(of: index)
        return body(segments[segment][offset])
    }

    /// Changes the element at `index` in place.
    @inline(__always)
    mutating func update<Result>(_ index: Int, _ body: (inout Element) -> Result) -> Result {
        let (segment, offset) = position(of: index)
        return body(&segments[segment][offset])
    }

    mutating func append(_ element: consuming Element) {
        if segments.isEmpty || segments[segments.count - 1].count == Self.segmentSize {
            var segment: [Element] = []
            segment.reserveCapacity(Self.segmentSize)
            segments.append(segment)
        }
        segments[segments.count - 1].append(element)
        count += 1
    }

    /// Drops the first `dropped` elements (they are replaced by `empty` until their segment goes).
    mutating func removeFirst(_ dropped: Int) {
        precondition(dropped >= 0 && dropped <= count, "SegmentedSlots cannot remove more than it holds")
        if dropped == count {
            removeAll()
            return
        }
        for index in 0..<dropped { self[index] = empty }
        start += dropped
        count -= dropped
        let emptied = start / Self.segmentSize
        if emptied > 0 {
            segments.removeFirst(emptied)
            start -= emptied * Self.segmentSize
        }
    }

    /// Drops every element; keeps the first segment's memory, which the next appends fill.
    mutating func removeAll() {
        if segments.count > 1 { segments.removeLast(segments.count - 1) }
        if !segments.isEmpty { segments[0].removeAll(keepingCapacity: true) }
        start = 0
        count = 0
    }
}
