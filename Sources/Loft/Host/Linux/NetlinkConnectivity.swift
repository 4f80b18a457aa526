#if os(Linux)
    import Glibc

    /// The host's connectivity on Linux, live: an rtnetlink socket subscribed to link and address changes
    /// (`RTMGRP_LINK`, `RTMGRP_IPV4_IFADDR`, `RTMGRP_IPV6_IFADDR`). After each batch of messages the source asks
    /// `HostConnectivity.isOnline()` again and reports a change; it reports the state it finds when it starts.
    /// Nothing is read on a timer.
    struct NetlinkConnectivity: HostSignalSource {
        let name = "connectivity"
        /// A network namespace to follow instead of the process's (`/var/run/netns/NAME`): the source's thread
        /// enters it before opening its socket (the tests' own namespace).
        let namespace: String?
        private let loop = RunningLoop()

        init(namespace: String? = nil) {
            self.namespace = namespace
        }

        func start(_ report: @escaping @Sendable (HostSignalChange) -> Void) throws(HostSignalError) {
            let last = Locked<Bool?>(nil)
            let namespace = namespace
            try loop.start(
                open: { () throws(HostSignalError) -> [PollLoop.Watch] in
                    if let namespace { try enterNetworkNamespace(at: namespace) }
                    let socket = try Self.openSocket()
                    Self.check(last, report)
                    return [PollLoop.Watch(descriptor: socket, events: Int16(POLLIN))]
                },
                ready: { _, socket, _ in
                    // Each message says something changed; which, the interface list says once they are read.
                    if let error = Self.drain(socket) { return error }
                    Self.check(last, report)
                    return nil
                },
                report: report)
        }

        func stop() {
            loop.stop()
        }

        /// A netlink route socket bound to the link and address groups.
        private static func openSocket() throws(HostSignalError) -> Int32 {
            let routeProtocol: Int32 = 0  // NETLINK_ROUTE
            let groups: UInt32 = 0x1 | 0x10 | 0x100  // RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR
            let descriptor = socket(
                AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue),
                routeProtocol)
            guard descriptor >= 0 else { throw HostSignalError("netlink socket", code: errno) }
            var address = NetlinkAddress(family: UInt16(AF_NETLINK), groups: groups)
            let bound = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<NetlinkAddress>.size))
                }
            }
            guard bound == 0 else {
                let code = errno
                close(descriptor)
                throw HostSignalError("netlink bind", code: code)
            }
            return descriptor
        }

        /// Reads every message waiting on `socket`; an overrun (`ENOBUFS`: messages were lost) only means that
        /// the interface list must be read again, which follows anyway.
        private static func drain(_ socket: Int32) -> HostSignalError? {
            var buffer = [UInt8](repeating: 0, count: 16_384)
            while true {
                let count = buffer.withUnsafeMutableBytes {
                    recv(socket, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
                }
                if count > 0 { continue }
                if count == 0 { return HostSignalError("netlink socket closed", code: 0) }
                switch errno {
                case EAGAIN, EWOULDBLOCK: return nil
                case EINTR, ENOBUFS: continue
                default: return HostSignalError("netlink recv", code: errno)
                }
            }
        }

        /// Reports the host's connectivity when it changed since `last`.
        private static func check(_ last: Locked<Bool?>, _ report: @Sendable (HostSignalChange) -> Void) {
            guard let isOnline = HostConnectivity.isOnline() else { return }
            let changed = last.withLock { last -> Bool in
                defer { last = isOnline }
                return last != isOnline
            }
            if changed { report(.online(isOnline)) }
        }
    }

    /// `struct sockaddr_nl`, which the C module does not import.
    private struct NetlinkAddress {
        var family: UInt16
        var padding: UInt16 = 0
        var portID: UInt32 = 0
        var groups: UInt32

        init(family: UInt16, groups: UInt32) {
            self.family = family
            self.groups = groups
        }
    }

    /// Moves the calling thread into the network namespace at `path` (`setns(2)`, looked up at run time: the C
    /// module does not import it).
    func enterNetworkNamespace(at path: String) throws(HostSignalError) {
        typealias SetNamespace = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(nil, "setns") else { throw HostSignalError("setns lookup", code: ENOSYS) }
        let setNamespace = unsafeBitCast(symbol, to: SetNamespace.self)
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw HostSignalError("open \(path)", code: errno) }
        defer { close(descriptor) }
        let newNetworkNamespace: Int32 = 0x4000_0000  // CLONE_NEWNET
        guard setNamespace(descriptor, newNetworkNamespace) == 0 else { throw HostSignalError("setns", code: errno) }
    }
#endif
