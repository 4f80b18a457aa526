/// The answer a removed entry gives a fetch request that reached it after its removal (it takes no event): the
/// caller asks the key's next entry instead. It never reaches a user.
package struct EntryRemovedError: Error, Sendable {
    package init() {}
}
