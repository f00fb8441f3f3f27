import Testing

@testable import TransparencyLog

@Suite("Tile paths: tile/<L>/<N>[.p/<W>] and tile/entries/<N>[.p/<W>]")
struct TilePathTests {
    @Test(
        "index groups of three digits, all but the last prefixed with x",
        arguments: [
            (UInt64(0), "000"), (5, "005"), (999, "999"), (1000, "x001/000"), (1_234_067, "x001/x234/067"),
            (UInt64.max, "x018/x446/x744/x073/x709/x551/615"),
        ])
    func indexEncoding(_ index: UInt64, _ encoded: String) throws {
        let path = TilePath(kind: .hashes(level: 0), index: index)
        #expect(path.path == "tile/0/" + encoded)
        #expect(try TilePath(parsing: path.path) == path)
    }

    @Test("partial tiles and entry bundles carry .p/<W>")
    func partialAndEntries() throws {
        let partial = TilePath(kind: .hashes(level: 2), index: 1_234_067, width: 17)
        #expect(partial.path == "tile/2/x001/x234/067.p/17")
        #expect(try TilePath(parsing: partial.path) == partial)
        let bundle = TilePath(kind: .entries, index: 1, width: 255)
        #expect(bundle.path == "tile/entries/001.p/255")
        #expect(try TilePath(parsing: bundle.path) == bundle)
        #expect(try TilePath(parsing: "tile/entries/x001/234") == TilePath(kind: .entries, index: 1234))
    }

    @Test(
        "paths the encoding never produces are refused",
        arguments: [
            "tile/0/5", "tile/0/0005", "tile/00/005", "tile/64/005", "tile/0/001/234", "tile/0/x000/005",
            "tile/0/005.p/0", "tile/0/005.p/256", "tile/0/005.p/017", "tile/0/005.p/", "tile/0/005.p", "tile/0/",
            "tile/entries/005.p/-1", "tile/x/005", "tiles/0/005", "tile/0/x018/x446/x744/x073/x709/x551/616",
            "tile/0/x1000/000", "",
        ])
    func refused(_ text: String) {
        let error = #expect(throws: TransparencyLogError.self, "\(text)") { try TilePath(parsing: text) }
        #expect(error?.code == .malformedTile)
    }

    @Test(
        "a 70,000-entry tree is the spec's 273 full and one 112-wide tile at level 0, 1 and 17 at level 1, 1 at level 2"
    )
    func specExampleGeometry() {
        let size: UInt64 = 70_000
        #expect(TileGeometry.levelCount(size: size) == 3)
        #expect(TileGeometry.fullTileCount(level: 0, size: size) == 273)
        #expect(TileGeometry.partialWidth(level: 0, size: size) == 112)
        #expect(TileGeometry.fullTileCount(level: 1, size: size) == 1)
        #expect(TileGeometry.partialWidth(level: 1, size: size) == 17)
        #expect(TileGeometry.fullTileCount(level: 2, size: size) == 0)
        #expect(TileGeometry.partialWidth(level: 2, size: size) == 1)
        // "a tree of size 256 will be represented by a full level 0 tile and a partial level 1 tile of width 1"
        #expect(
            TileGeometry.tile(.hashes(level: 0), index: 0, size: 256) == TilePath(kind: .hashes(level: 0), index: 0))
        #expect(
            TileGeometry.tile(.hashes(level: 1), index: 0, size: 256)
                == TilePath(kind: .hashes(level: 1), index: 0, width: 1))
        #expect(TileGeometry.tile(.hashes(level: 0), index: 1, size: 256) == nil)
    }

    @Test("entry bundles are big-endian uint16 length-prefixed entries; truncation and trailing bytes are refused")
    func entryBundles() throws {
        let entries: [[UInt8]] = [[], [0x41], Array(repeating: 0x42, count: 300)]
        let bytes = try TileContent.entryBundle(entries)
        #expect(Array(bytes.prefix(5)) == [0x00, 0x00, 0x00, 0x01, 0x41])
        #expect(Array(bytes[5..<7]) == [0x01, 0x2C])
        let path = TilePath(kind: .entries, index: 0, width: 3)
        #expect(try TileContent.parseEntryBundle(bytes, path: path) == entries)
        #expect(throws: TransparencyLogError.self) {
            try TileContent.parseEntryBundle(Array(bytes.dropLast()), path: path)
        }
        #expect(throws: TransparencyLogError.self) { try TileContent.parseEntryBundle(bytes + [0], path: path) }
        #expect(throws: TransparencyLogError.self) {
            try TileContent.parseEntryBundle(bytes, path: TilePath(kind: .entries, index: 0, width: 2))
        }
        #expect(throws: TransparencyLogError.self) { try TileContent.entryBundle([Array(repeating: 0, count: 65_536)]) }
    }
}
