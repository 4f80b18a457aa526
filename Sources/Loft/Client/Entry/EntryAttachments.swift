/// What an entry's storage holds for the entry's users and none of its rules: the listeners of its changes,
/// the typed views its observers share, the answers of its waiters and the read of a network store in flight.
///
/// **Behavior**
/// - The storage keeps it out of line (`QueryCacheEntry.Storage.attachments`), made when the first of them
///   comes and dropped once the last goes: an entry nobody observes, waits for or reads (a service's
///   `fetchQuery` entries, row (i)) pays one pointer for all four.
/// - Reads go through the storage's properties, which make nothing.
struct EntryAttachments: Sendable {
    /// What follows the entry's changes, in the order they came: an entry nobody observes (a `setQueryData`, a
    /// prefetch, a hydrated query) tells no one.
    var listeners: [(id: UInt64, listener: any EntryListener)] = []
    /// The typed views its observers share, with how many follow each.
    var views: [ViewIdentity: (view: any SharedEntryView, count: Int)] = [:]
    /// How to answer the waiters the machine knows: a task's continuation, or an outcome kept for later.
    var continuations: [EntryWaiter: QueryCacheEntry.Answer] = [:]
    /// The read of a network store in flight, which concurrent reads of the entry share.
    var storeRead: TrackedTask<CachedValue<any Sendable>?>?

    /// Whether it holds nothing: the storage may drop it.
    var isEmpty: Bool {
        listeners.isEmpty && views.isEmpty && continuations.isEmpty && storeRead == nil
    }
}

/// The storage's attachments: read without making them, made on the first write, dropped when emptied.
extension QueryCacheEntry.Storage {
    /// The attachments, made on first use (dropped by `dropEmptyAttachments()`).
    private var attachments: EntryAttachments {
        get { attachmentStorage.first ?? EntryAttachments() }
        _modify {
            if attachmentStorage.isEmpty { attachmentStorage.append(EntryAttachments()) }
            yield &attachmentStorage[0]
        }
    }

    var listeners: [(id: UInt64, listener: any EntryListener)] {
        get { attachmentStorage.isEmpty ? [] : attachmentStorage[0].listeners }
        _modify { yield &attachments.listeners }
    }

    var views: [ViewIdentity: (view: any SharedEntryView, count: Int)] {
        get { attachmentStorage.isEmpty ? [:] : attachmentStorage[0].views }
        _modify { yield &attachments.views }
    }

    var continuations: [EntryWaiter: QueryCacheEntry.Answer] {
        get { attachmentStorage.isEmpty ? [:] : attachmentStorage[0].continuations }
        _modify { yield &attachments.continuations }
    }

    var storeRead: TrackedTask<CachedValue<any Sendable>?>? {
        get { attachmentStorage.isEmpty ? nil : attachmentStorage[0].storeRead }
        _modify { yield &attachments.storeRead }
    }

    /// Whether the entry has waiters to answer, read without making the attachments.
    var hasContinuations: Bool {
        !attachmentStorage.isEmpty && !attachmentStorage[0].continuations.isEmpty
    }

    /// Drops the attachments once they hold nothing (after each change of them). A dictionary emptied by
    /// removals keeps its buffer, so an emptied one goes with them.
    mutating func dropEmptyAttachments() {
        if !attachmentStorage.isEmpty, attachmentStorage[0].isEmpty { attachmentStorage = [] }
    }
}
