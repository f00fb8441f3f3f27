import LifecycleFuzzing

#if canImport(Glibc)
    import Glibc
#endif

// The libFuzzer driver (https://llvm.org/docs/LibFuzzer.html). One instrumented binary serves every target:
// the target is chosen from `LIFECYCLE_FUZZ_TARGET` before the driver starts; the checks themselves are in
// LifecycleFuzzing, shared with the test suite. A property failure aborts, which libFuzzer records as a
// crash, saving the input that caused it.
//
// SwiftPM links an executable with `main` defined as `<module>_main`, so this module provides that symbol
// and hands control to libFuzzer through `LLVMFuzzerRunDriver` instead of libFuzzer's own `main`.

@_silgen_name("LLVMFuzzerRunDriver")
private func runDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

nonisolated(unsafe) private var selected: FuzzTarget?

@_cdecl("lifecycle_fuzz_main")
public func fuzzMain(
    _ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> Int32 {
    let name = getenv("LIFECYCLE_FUZZ_TARGET").map { String(cString: $0) } ?? ""
    guard let target = FuzzTarget.named(name) else {
        let names = FuzzTarget.all.map(\.name).joined(separator: ", ")
        printError("lifecycle-fuzz: set LIFECYCLE_FUZZ_TARGET to one of: \(names)")
        return 2
    }
    selected = target
    var count = argc
    var arguments = argv
    return runDriver(&count, &arguments, testOneInput)
}

private func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let target = selected else { return 0 }
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    do {
        try target.check(bytes)
    } catch {
        printError("lifecycle-fuzz: property failure in \(target.name): \(error)")
        abort()
    }
    return 0
}

/// One line on standard error, written with write(2): the C `stderr` global is shared mutable state to Swift 6.
private func printError(_ line: String) {
    var text = line + "\n"
    text.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
}
