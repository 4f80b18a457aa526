// The Apple platforms' host signals, written against the platforms' documented APIs (`NWPathMonitor`, the
// application activation notifications, `DispatchSource.makeMemoryPressureSource`). This repository's CI
// builds and tests on Linux only: it compiles none of this file.
#if canImport(Darwin)
    import Dispatch
    import Foundation
    #if canImport(Network)
        import Network
    #endif
    #if canImport(UIKit)
        import UIKit
    #elseif canImport(AppKit)
        import AppKit
    #elseif canImport(WatchKit)
        import WatchKit
    #endif

    /// The Apple platforms' sources, as the platform has them.
    func appleSources() -> [any HostSignalSource] {
        var sources: [any HostSignalSource] = [DispatchMemoryPressure()]
        #if canImport(Network)
            sources.append(PathMonitorConnectivity())
        #endif
        if !ActivationFocus.notificationNames.isEmpty { sources.append(ActivationFocus()) }
        return sources
    }

    #if canImport(Network)
        /// Connectivity from `NWPathMonitor`: online when the path is satisfied.
        struct PathMonitorConnectivity: HostSignalSource {
            let name = "connectivity"
            private let monitor = Locked<NWPathMonitor?>(nil)

            func start(_ report: @escaping @Sendable (HostSignalChange) -> Void) throws(HostSignalError) {
                let started = NWPathMonitor()
                started.pathUpdateHandler = { path in report(.online(path.status == .satisfied)) }
                started.start(queue: DispatchQueue(label: "loft.host.connectivity"))
                monitor.withLock { $0 = started }
            }

            func stop() {
                monitor.take()?.cancel()
            }
        }
    #endif

    /// Focus from the application's activation notifications (UIKit, AppKit or WatchKit).
    struct ActivationFocus: HostSignalSource {
        let name = "focus"
        private let tasks = Locked<[Task<Void, Never>]>([])

        /// The notifications that say the app became active and resigned, as the platform names them.
        static var notificationNames: [(name: Notification.Name, isFocused: Bool)] {
            #if canImport(UIKit)
                [
                    (UIApplication.didBecomeActiveNotification, true),
                    (UIApplication.willResignActiveNotification, false),
                ]
            #elseif canImport(AppKit)
                [
                    (NSApplication.didBecomeActiveNotification, true),
                    (NSApplication.didResignActiveNotification, false),
                ]
            #elseif canImport(WatchKit)
                [
                    (WKApplication.didBecomeActiveNotification, true),
                    (WKApplication.willResignActiveNotification, false),
                ]
            #else
                []
            #endif
        }

        func start(_ report: @escaping @Sendable (HostSignalChange) -> Void) throws(HostSignalError) {
            let started = Self.notificationNames.map { entry in
                Task {
                    for await _ in NotificationCenter.default.notifications(named: entry.name) {
                        report(.focused(entry.isFocused))
                    }
                }
            }
            tasks.withLock { $0 = started }
        }

        func stop() {
            // Taken in one hold of the lock: a start between a read and a clear would leave its tasks running.
            let running = tasks.withLock { tasks in
                defer { tasks = [] }
                return tasks
            }
            for task in running { task.cancel() }
        }
    }

    /// Memory pressure from the dispatch memory-pressure source.
    struct DispatchMemoryPressure: HostSignalSource {
        let name = "memory pressure"
        private let source = Locked<(any DispatchSourceMemoryPressure)?>(nil)

        func start(_ report: @escaping @Sendable (HostSignalChange) -> Void) throws(HostSignalError) {
            let started = DispatchSource.makeMemoryPressureSource(
                eventMask: [.warning, .critical], queue: DispatchQueue(label: "loft.host.memory"))
            started.setEventHandler { [weak started] in
                guard let event = started?.data else { return }
                report(.memoryPressure(event.contains(.critical) ? .critical : .warning))
            }
            started.resume()
            source.withLock { $0 = started }
        }

        func stop() {
            source.take()?.cancel()
        }
    }
#endif
