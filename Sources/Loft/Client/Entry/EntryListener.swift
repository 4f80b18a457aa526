/// What follows an entry's changes (its typed views): the entry calls it after every change, with no lock
/// held, on the thread that made the change.
///
/// Calls are not queued: two threads changing the entry at once call a listener at once, and a change made
/// from inside the call calls it again from there. A listener that must see one change at a time serialises
/// itself (an `EntryView` runs its updates through a `CoalescedRun` and reads the entry's latest snapshot).
protocol EntryListener: AnyObject, Sendable {
    /// The entry changed; `version` is its version after the change.
    func entryChanged(to version: UInt64)
}
