#if os(Linux)
    import Foundation
    import Glibc
    import LoftTesting
    import Testing

    @testable import Loft

    /// The Linux sources against the kernel: connectivity in a network namespace of the test's own, memory
    /// pressure against a stand-in trigger file and, where the host has one, a real trigger registration.
    @Suite(.timeLimit(.minutes(1))) struct LinuxHostSourcesTests {
        /// Runs `ip` with `arguments`; true when it succeeded.
        @discardableResult
        static func ip(_ arguments: String...) -> Bool {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            guard (try? process.run()) != nil else { return false }
            process.waitUntilExit()
            return process.terminationStatus == 0
        }

        /// A namespace with one link that has an address: a dummy link, or a veth pair where the kernel has no
        /// dummy links. Nil, with the reason, where namespaces cannot be made (not root, no `ip`).
        static func makeNamespace() -> (name: String, link: String)? {
            guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip") else { return nil }
            let name = "loft-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            guard ip("netns", "add", name) else { return nil }
            let link = "loft0"
            let made =
                ip("-n", name, "link", "add", link, "type", "dummy")
                || (ip("-n", name, "link", "add", link, "type", "veth", "peer", "name", "loft1")
                    && ip("-n", name, "link", "set", "loft1", "up"))
            guard made, ip("-n", name, "addr", "add", "10.77.0.1/24", "dev", link),
                ip("-n", name, "link", "set", link, "up")
            else {
                ip("netns", "del", name)
                return nil
            }
            return (name, link)
        }

        /// A source that notes when each change was reported, on the source's own thread (the test's wait for
        /// the client adds the scheduling of its task, which a loaded machine delays).
        final class TimedSource: HostSignalSource {
            let wrapped: any HostSignalSource
            let reports = Locked<[(change: HostSignalChange, at: ContinuousClock.Instant)]>([])

            init(_ wrapped: any HostSignalSource) { self.wrapped = wrapped }

            var name: String { wrapped.name }

            func start(_ report: @escaping @Sendable (HostSignalChange) -> Void) throws(HostSignalError) {
                try wrapped.start { [reports] change in
                    reports.withLock { $0.append((change, ContinuousClock.now)) }
                    report(change)
                }
            }

            func stop() { wrapped.stop() }

            /// When `change` was last reported.
            func reported(_ change: HostSignalChange) -> ContinuousClock.Instant? {
                reports.withLock { $0.last { $0.change == change }?.at }
            }
        }

        @Test("the netlink source sees a link go down and up within a second, in a namespace of its own")
        func netlinkFollowsALink() async throws {
            guard let namespace = Self.makeNamespace() else {
                print("skipped: network namespaces need root and iproute2 (`ip netns add` failed)")
                return
            }
            defer { Self.ip("netns", "del", namespace.name) }
            let client = QueryClient(scheduler: TestScheduler(), isOnline: false)
            let source = TimedSource(NetlinkConnectivity(namespace: "/var/run/netns/\(namespace.name)"))
            client.follow(HostSignals { [source] })
            defer { client.stopFollowing() }
            await client.until { client.isOnline }  // what it found when it started

            // From the moment `ip` returns (the link changed) to the source's report (starting `ip` is not the
            // source's time, nor is the scheduling of this test's task).
            #expect(Self.ip("-n", namespace.name, "link", "set", namespace.link, "down"))
            var changed = ContinuousClock.now
            await client.until { !client.isOnline }
            let wentDown = try #require(source.reported(.online(false)))
            #expect(wentDown - changed < .seconds(1))

            #expect(Self.ip("-n", namespace.name, "link", "set", namespace.link, "up"))
            changed = ContinuousClock.now
            await client.until { client.isOnline }
            let cameUp = try #require(source.reported(.online(true)))
            #expect(cameUp - changed < .seconds(1))
        }

        @Test("a namespace that does not exist is a typed error when the source starts")
        func missingNamespace() {
            let source = NetlinkConnectivity(namespace: "/var/run/netns/loft-no-such-namespace")
            #expect(throws: HostSignalError.self) { try source.start { _ in } }
        }

        @Test("a pressure-stall trigger is registered with its threshold and window in microseconds")
        func stallRegistration() {
            let trigger = PressureStallSource.Trigger.stall(
                "some", .milliseconds(100), within: .seconds(2), on: "/proc/pressure/memory", .warning)
            #expect(trigger.registration == "some 100000 2000000")
            #expect(trigger.level == .warning && trigger.path == "/proc/pressure/memory")
        }

        @Test("the pressure source reports each wake of a trigger file stand-in, and the client trims")
        func pressureStandIn() async throws {
            let folder = TemporaryDirectory()
            let warning = folder.url.appendingPathComponent("warning").path
            let critical = folder.url.appendingPathComponent("critical").path
            try FileManager.default.createDirectory(at: folder.url, withIntermediateDirectories: true)
            try #require(mkfifo(warning, 0o600) == 0 && mkfifo(critical, 0o600) == 0)
            let source = PressureStallSource(triggers: [
                .init(path: warning, registration: nil, level: .warning, events: Int16(POLLIN)),
                .init(path: critical, registration: nil, level: .critical, events: Int16(POLLIN)),
            ])
            let client = QueryClient(scheduler: TestScheduler(), memoryBudget: .entries(8))
            for index in 0..<8 { client.setQueryData(index, for: QueryKey("item", index)) }
            try source.start { _ in }  // it starts: a source that cannot would leave the waits below hanging
            source.stop()
            client.follow(HostSignals { [source] })
            defer { client.stopFollowing() }

            Self.wake(warning)
            await client.until { client.memoryUsage == 4 }
            Self.wake(critical)
            await client.until { client.memoryUsage == 0 }
            #expect(client.memoryUsage == 0)
        }

        @Test("a trigger file that cannot be opened is a typed error; a real trigger registers where PSI exists")
        func realRegistration() throws {
            let missing = PressureStallSource(triggers: [
                .stall("some", .milliseconds(100), within: .seconds(2), on: "/nonexistent/memory.pressure", .warning)
            ])
            #expect(throws: HostSignalError.self) { try missing.start { _ in } }
            guard access(PressureStallSource.pressureFile(), W_OK) == 0 else {
                print("skipped: this host has no pressure-stall file to register a trigger on")
                return
            }
            let host = PressureStallSource.host()
            try host.start { _ in }
            host.stop()
            host.stop()
        }

        @Test("the host's sources start and stop through follow(.host)")
        func followTheHost() {
            let client = QueryClient(scheduler: TestScheduler())
            #expect(client.follow(.host))
            #expect(!client.follow(.host))
            client.stopFollowing()
            #expect(!client.isFollowingHost)
        }

        /// Writes a byte to the stand-in at `path`, as the kernel's wake would.
        static func wake(_ path: String) {
            let descriptor = open(path, O_WRONLY | O_NONBLOCK)
            guard descriptor >= 0 else {
                Issue.record("cannot open \(path): errno \(errno)")
                return
            }
            var byte: UInt8 = 1
            #expect(write(descriptor, &byte, 1) == 1)
            close(descriptor)
        }
    }
#endif
