import LifecycleCore
import LifecycleStore

/// The service's side of the merge: its accounts for one app, in `sub` order, fetched a page at a time by
/// keyset (`sub > last`), so memory holds one page however many accounts there are. Runs on the merge thread.
struct ObservedAccountPager: IteratorProtocol {
    private let store: any Store
    private let app: String
    private let pageSize: Int
    private let failure: MergeFailure
    private var page: [ObservedAccount] = []
    private var index = 0
    private var exhausted = false
    private let tally: Tally

    init(store: any Store, app: String, pageSize: Int, failure: MergeFailure, tally: Tally) {
        self.tally = tally
        self.store = store
        self.app = app
        self.pageSize = pageSize
        self.failure = failure
    }

    mutating func next() -> ObservedAccount? {
        if index == page.count {
            guard !exhausted, failure.error == nil else { return nil }
            let (store, app, pageSize) = (self.store, self.app, self.pageSize)
            let after = page.last?.subject
            do {
                page = try BlockingBridge.wait {
                    try await store.read { reader in
                        try reader.observedAccounts(app: app, afterSubject: after, limit: pageSize)
                    }
                }
            } catch {
                failure.error = error
                return nil
            }
            index = 0
            exhausted = page.count < pageSize
            guard !page.isEmpty else { return nil }
        }
        defer { index += 1 }
        tally.value += 1
        return page[index]
    }
}
