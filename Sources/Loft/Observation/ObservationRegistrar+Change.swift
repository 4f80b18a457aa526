import Observation

extension ObservationRegistrar {
    /// Tells observation tracking that `keyPath` of `subject` changed. Loft's observable types change their
    /// state behind a lock, elsewhere, so they announce the change after the fact, in one call.
    func notifyChange<Subject: Observable, Member>(of subject: Subject, at keyPath: KeyPath<Subject, Member>) {
        willSet(subject, keyPath: keyPath)
        didSet(subject, keyPath: keyPath)
    }
}
