/// When a failed fetch is tried again, and after how long.
///
/// The default retries 3 times with exponential back-off: 1 s, 2 s, 4 s (doubling, capped at 30 s), all on the
/// client's scheduler, so tests run in virtual time.
///
/// ```swift
/// QueryOptions<User>(retry: .never)
/// QueryOptions<User>(retry: .skippingClientErrors)      // no retry for HTTP 4xx
/// QueryOptions<User>(retry: .custom { attempt, error in attempt < 5 ? .seconds(attempt) : nil })
/// ```
public struct RetryPolicy: Sendable {
    /// Given the number of failures so far (1 after the first) and the last error, the delay before the next
    /// attempt, or nil to give up.
    public let delayBeforeRetry: @Sendable (_ failureCount: Int, _ error: any Error) -> Duration?

    /// A policy from a closure: failures so far and the last error in, the delay before the next attempt (or
    /// nil to stop) out.
    public static func custom(
        _ delayBeforeRetry: @escaping @Sendable (_ failureCount: Int, _ error: any Error) -> Duration?
    ) -> RetryPolicy {
        RetryPolicy(delayBeforeRetry: delayBeforeRetry)
    }

    /// Never retries.
    public static let never = RetryPolicy { _, _ in nil }

    /// Retries up to `count` times with the default back-off (1 s doubling, capped at 30 s).
    public static func count(_ count: Int) -> RetryPolicy {
        RetryPolicy { failures, _ in failures <= count ? backOff(afterFailure: failures) : nil }
    }

    /// 3 retries, 1 s doubling, capped at 30 s.
    public static let `default` = count(3)

    /// Like `default`, but never retries an error whose HTTP status is 4xx (the request itself is wrong).
    public static let skippingClientErrors = RetryPolicy { failures, error in
        if let status = (error as? any HTTPStatusError)?.httpStatusCode, (400..<500).contains(status) { return nil }
        return failures <= 3 ? backOff(afterFailure: failures) : nil
    }

    /// The default back-off: 1 s after the first failure, doubling, capped at 30 s.
    public static func backOff(afterFailure failures: Int) -> Duration {
        let exponent = min(max(failures - 1, 0), 5)
        return min(.seconds(1 << exponent), .seconds(30))
    }
}

/// An error that carries an HTTP status code, so that `RetryPolicy.skippingClientErrors` can tell a client
/// error (4xx, not worth retrying) from a server or network error.
///
/// ```swift
/// struct APIError: HTTPStatusError {
///     let httpStatusCode: Int?   // nil: no response came (a network error), so it is retried
/// }
/// ```
public protocol HTTPStatusError: Error {
    /// The response's status code; nil when no response came (the connection failed), which
    /// `skippingClientErrors` retries like a server error.
    var httpStatusCode: Int? { get }
}
