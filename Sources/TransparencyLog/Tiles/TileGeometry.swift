/// Which tiles a tree of a given size consists of (c2sp.org/tlog-tiles §Merkle Tree, §Partial Tiles).
///
/// A hash at tile level l covers 256^l leaves. For size s, level l has ⌊s / 256^(l+1)⌋ full tiles and one
/// partial tile of width ⌊s / 256^l⌋ mod 256 when that width is not zero; a size-70,000 tree is 273 full and
/// one 112-wide tile at level 0, one full and one 17-wide at level 1, one 1-wide at level 2.
enum TileGeometry {
    static let bitsPerLevel = 8

    static func fullTileCount(level: Int, size: UInt64) -> UInt64 {
        size >> UInt64(bitsPerLevel * (level + 1))
    }

    /// Width of the partial tile at `level`, 0 when there is none.
    static func partialWidth(level: Int, size: UInt64) -> Int {
        Int((size >> UInt64(bitsPerLevel * level)) & 0xFF)
    }

    /// Number of levels with at least one hash.
    static func levelCount(size: UInt64) -> Int {
        var level = 0
        while level <= TilePath.maximumLevel, size >> UInt64(bitsPerLevel * level) > 0 { level += 1 }
        return level
    }

    /// The tile holding tile-level hashes of index `index` at `level`, as published at tree size `size`: full,
    /// or partial of the width that size gives, or nil when the size has no such tile.
    static func tile(_ kind: TilePath.Kind, index: UInt64, size: UInt64) -> TilePath? {
        let level: Int
        switch kind {
        case .hashes(let value): level = value
        case .entries: level = 0
        }
        let full = fullTileCount(level: level, size: size)
        if index < full { return TilePath(kind: kind, index: index) }
        let width = partialWidth(level: level, size: size)
        if index == full, width > 0 { return TilePath(kind: kind, index: index, width: width) }
        return nil
    }
}
