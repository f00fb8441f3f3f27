/// A benchmark that could not set itself up (its scratch files, its server): the one line `bench` prints.
struct BenchmarkError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}
