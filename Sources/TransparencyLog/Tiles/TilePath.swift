/// The name of one static resource of a tiled log (c2sp.org/tlog-tiles §Merkle Tree, §Log entries):
/// `tile/<L>/<N>[.p/<W>]` for hashes and `tile/entries/<N>[.p/<W>]` for entry bundles.
///
/// `<N>` is written in 3-digit groups, all but the last prefixed with `x` (index 1234067 is `x001/x234/067`),
/// so a directory never holds both a file and a subdirectory of the same name and can be served as is.
public struct TilePath: Hashable, Sendable, CustomStringConvertible {
    /// Hashes per full tile and entries per full bundle (c2sp.org/tlog-tiles: "exactly 256 hashes wide").
    public static let fullWidth = 256
    /// Levels are 0 through 63.
    public static let maximumLevel = 63

    public enum Kind: Hashable, Sendable {
        /// Merkle tree hashes at `level`: level 0 holds leaf hashes, level l hashes of 256^l leaves each.
        case hashes(level: Int)
        /// Entry bundle: the entries of the level-0 tile with the same index.
        case entries
    }

    public let kind: Kind
    public let index: UInt64
    /// 1...256; 256 is a full tile, anything less a partial one (`.p/<W>`).
    public let width: Int

    public init(kind: Kind, index: UInt64, width: Int = TilePath.fullWidth) {
        if case .hashes(let level) = kind {
            precondition((0...Self.maximumLevel).contains(level), "tile level \(level) is out of range")
        }
        precondition((1...Self.fullWidth).contains(width), "tile width \(width) is out of range")
        self.kind = kind
        self.index = index
        self.width = width
    }

    public var isFull: Bool { width == Self.fullWidth }

    /// The path relative to the log's URL prefix or directory.
    public var path: String {
        let head: String
        switch kind {
        case .hashes(let level): head = "tile/\(level)/"
        case .entries: head = "tile/entries/"
        }
        return head + Self.encode(index) + (isFull ? "" : ".p/\(width)")
    }

    public var description: String { path }

    /// The same tile, full.
    public var full: TilePath { TilePath(kind: kind, index: index) }

    /// Parses a tile path; refuses levels past 63, leading zeroes in `L` or `W`, a missing `x`, a width of 0 or
    /// 256 written as partial, and anything else the encoding does not produce. Never traps.
    public init(parsing text: String) throws(TransparencyLogError) {
        let parts = Array(text.utf8).split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map(
            Array.init)
        func bad(_ why: String) -> TransparencyLogError {
            TransparencyLogError(.malformedTile, "tile path \"\(String(text.prefix(80)))\": \(why)")
        }
        guard parts.count >= 3, parts[0] == Array("tile".utf8) else { throw bad("does not start with tile/") }
        let kind: Kind
        if parts[1] == Array("entries".utf8) {
            kind = .entries
        } else {
            guard let level = DecimalNumber.parse(parts[1]), level <= UInt64(Self.maximumLevel) else {
                throw bad("the level is not a number from 0 to 63")
            }
            kind = .hashes(level: Int(level))
        }
        var elements = Array(parts[2...])
        var width = Self.fullWidth
        if elements.count >= 2, elements[elements.count - 2].count == 5,
            elements[elements.count - 2].suffix(2) == Array(".p".utf8)
        {
            guard let parsed = DecimalNumber.parse(elements[elements.count - 1]), parsed >= 1,
                parsed < UInt64(Self.fullWidth)
            else { throw bad("a partial width is a number from 1 to 255") }
            width = Int(parsed)
            elements.removeLast()
            elements[elements.count - 1].removeLast(2)
        }
        var index: UInt64 = 0
        for (position, element) in elements.enumerated() {
            let isLast = position == elements.count - 1
            var digits = element[...]
            if !isLast {
                guard digits.first == UInt8(ascii: "x") else { throw bad("all but the last index group start with x") }
                digits = digits.dropFirst()
            }
            guard digits.count == 3, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
                throw bad("index groups are three digits")
            }
            let group = digits.reduce(UInt64(0)) { $0 * 10 + UInt64($1 - UInt8(ascii: "0")) }
            let (times, overflow1) = index.multipliedReportingOverflow(by: 1000)
            let (sum, overflow2) = times.addingReportingOverflow(group)
            guard !overflow1, !overflow2 else { throw bad("the index does not fit 64 bits") }
            index = sum
        }
        // Groups beyond the needed ones ("x000/005") would give one tile two names.
        guard elements.count == Self.groupCount(index) else { throw bad("the index has a leading x000 group") }
        self.init(kind: kind, index: index, width: width)
    }

    static func encode(_ index: UInt64) -> String {
        var groups: [String] = []
        var rest = index
        repeat {
            let group = rest % 1000
            groups.append(group < 10 ? "00\(group)" : group < 100 ? "0\(group)" : "\(group)")
            rest /= 1000
        } while rest > 0
        return groups.reversed().enumerated().map { $0.offset == groups.count - 1 ? $0.element : "x" + $0.element }
            .joined(separator: "/")
    }

    private static func groupCount(_ index: UInt64) -> Int {
        var count = 1
        var rest = index / 1000
        while rest > 0 {
            count += 1
            rest /= 1000
        }
        return count
    }
}
