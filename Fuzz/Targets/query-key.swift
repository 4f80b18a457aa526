import Foundation
import FuzzChecks

/// libFuzzer's entry point: checks one input with `QueryKeyCheck`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    QueryKeyCheck.run(Data(bytes: start, count: count))
    return 0
}
