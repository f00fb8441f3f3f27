// The executable only hands its arguments to the command line layer.
import Foundation
import LifecycleCLI

exit(await CommandLineInterface.main(arguments: Array(CommandLine.arguments.dropFirst())))
