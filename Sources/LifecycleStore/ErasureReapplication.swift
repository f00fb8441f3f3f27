/// What ``StoreWriter/reapplyErasure(app:subject:scopes:erasedAt:account:)`` changed in a restored copy.
public struct ErasureReapplication: Sendable, Hashable {
    /// Data keys the copy still held and that are destroyed now.
    public var keysDestroyed: Int
    /// Rows whose sealed (or older plaintext) values were cleared now.
    public var rowsCleared: Int
    /// Whether the account row was put back to the state recorded at the erasure.
    public var accountRestored: Bool

    public init(keysDestroyed: Int, rowsCleared: Int, accountRestored: Bool) {
        self.keysDestroyed = keysDestroyed
        self.rowsCleared = rowsCleared
        self.accountRestored = accountRestored
    }

    /// True when the copy already reflected the erasure.
    public var changedNothing: Bool { keysDestroyed == 0 && rowsCleared == 0 && !accountRestored }
}
