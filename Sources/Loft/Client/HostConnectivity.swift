#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the host says of its network: whether an interface other than loopback is up, running and has an
/// address. It cannot tell whether the internet is reachable, only whether the machine is certainly offline.
///
/// ```swift
/// let client = QueryClient(cache: cache, isOnline: HostConnectivity.isOnline() ?? true)
/// ```
public enum HostConnectivity {
    /// True when an interface other than loopback is up and running with an IPv4 or IPv6 address, false when
    /// none is, nil when the host cannot tell (the interface list is unavailable).
    public static func isOnline() -> Bool? {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return nil }
        defer { freeifaddrs(list) }
        let required = UInt32(IFF_UP) | UInt32(IFF_RUNNING)
        var current: UnsafeMutablePointer<ifaddrs>? = first
        while let interface = current {
            defer { current = interface.pointee.ifa_next }
            let flags = UInt32(interface.pointee.ifa_flags)
            guard flags & required == required, flags & UInt32(IFF_LOOPBACK) == 0,
                let address = interface.pointee.ifa_addr
            else { continue }
            let family = Int32(address.pointee.sa_family)
            if family == AF_INET || family == AF_INET6 { return true }
        }
        return false
    }
}
