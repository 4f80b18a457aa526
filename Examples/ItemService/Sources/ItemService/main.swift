import Foundation
import ItemServiceKit

// The item service: `swift run ItemService --upstream http://127.0.0.1:8081` (see ServiceConfiguration).
do {
    let configuration = try ServiceConfiguration(
        arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
    try await ItemServiceApp.run(configuration)
} catch let error as ConfigurationError {
    FileHandle.standardError.write(Data("\(error)\n\(ServiceConfiguration.usage)\n".utf8))
    exit(2)
} catch {
    FileHandle.standardError.write(Data("item service: \(error)\n".utf8))
    exit(1)
}
