import Foundation

public enum CommandLineInterface {
    public static func main(arguments: [String]) async -> Int32 {
        print("lifecycle: not yet implemented")
        return 0
    }
}
