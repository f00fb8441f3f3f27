/// Size and count limits the request parser enforces before it allocates or buffers more input.
///
/// Every limit answers a specific attack from RFC 9112 §2.3 / RFC 9110 §5.4 ("a server … MUST be prepared to
/// receive … of unbounded length"): the defaults are generous for real clients (Apple's notification POSTs are a
/// few kilobytes) and small enough that one connection cannot exhaust memory.
public struct HTTPServerLimits: Sendable, Hashable {
    /// Longest request line (method SP target SP version, without CRLF). Beyond it: 414 URI Too Long
    /// (RFC 9112 §3: "A server that receives a request-target longer than any URI it wishes to parse MUST
    /// respond with a 414"). Default 8 KiB, the figure RFC 9112 §3 recommends supporting at least.
    public var maxRequestLineLength: Int = 8 * 1024

    /// Longest single field line (`name: value`, without CRLF). Beyond it: 431 (RFC 6585 §5). Default 8 KiB.
    public var maxFieldLineLength: Int = 8 * 1024

    /// Largest header section (all field lines with their CRLFs, plus the empty line). Beyond it: 431.
    /// Default 32 KiB. The same budget applies, separately, to a chunked body's trailer section.
    public var maxHeaderSectionLength: Int = 32 * 1024

    /// Most field lines in a header (or trailer) section. Beyond it: 431. Default 100.
    public var maxFieldCount: Int = 100

    /// Largest request body, declared (Content-Length, checked before any allocation) or received (the sum of
    /// chunk sizes, checked as each chunk size line is parsed). Beyond it: 413 (RFC 9110 §15.5.14).
    /// Default 1 MiB.
    public var maxBodyLength: Int = 1024 * 1024

    /// Most hex digits in a chunk-size (RFC 9112 §7.1). Leading zeros count. Beyond it: 400. Default 8
    /// (up to 4 GiB per chunk, already far above `maxBodyLength`).
    public var maxChunkSizeDigits: Int = 8

    /// Longest chunk extension text after the chunk size (`;name=value…`). Extensions are ignored but must be
    /// bounded (RFC 9112 §7.1.1: "A server … SHOULD limit the total length of chunk extensions"). Beyond it:
    /// 400. Default 256 bytes.
    public var maxChunkExtensionLength: Int = 256

    public init() {}
}
