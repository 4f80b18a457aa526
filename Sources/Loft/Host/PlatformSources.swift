/// This host's sources (`HostSignals.host`): on Linux connectivity and memory pressure (a tool or a service
/// has no focus); on Apple platforms connectivity, the app's activation and memory pressure, as available.
@Sendable func platformSources() -> [any HostSignalSource] {
    #if os(Linux)
        [NetlinkConnectivity(), PressureStallSource.host()]
    #elseif canImport(Darwin)
        appleSources()
    #else
        []
    #endif
}
