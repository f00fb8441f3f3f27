import LifecycleCore
import Synchronization
import Testing

@testable import LifecycleEngine

/// Every string field of a log line is one line and bounded, however long the outside text it quotes.
@Suite("Log fields bounded")
struct EventLogBoundTests {
    @Test("a field of 1 MiB with line separators, DEL and C1 becomes one escaped line of bounded size")
    func hostileField() {
        let lines = Mutex<[String]>([])
        let log = EventLog(
            level: .info, pseudonymizer: KeyedSubjectPseudonymizer(key: Array("k".utf8)),
            sink: { line in lines.withLock { $0.append(line) } })
        let hostile = "\u{2028}\u{7F}\u{85}" + String(repeating: "x", count: 1 << 20)
        log.info("test.event", [("error", .string(hostile)), ("nested", .array([.string(hostile)]))])
        let line = lines.withLock { $0 }.first ?? ""
        #expect(line.utf8.count < 3 * EventLog.maximumFieldBytes)
        #expect(!line.unicodeScalars.contains { $0 == "\u{2028}" || $0 == "\u{7F}" || $0 == "\u{85}" })
        #expect(line.contains("\\\\u{2028}"))
        #expect(line.contains("(1048582 bytes)"))
        log.info("test.short", [("error", .string("plain"))])
        #expect(lines.withLock { $0 }.last?.contains("\"error\":\"plain\"") == true)
    }
}
