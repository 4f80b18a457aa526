import Foundation
import FuzzChecks

/// libFuzzer's entry point: checks one input with `FileNameCheck`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    FileNameCheck.run(Data(bytes: start, count: count))
    return 0
}
