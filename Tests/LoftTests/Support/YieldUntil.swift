/// Yields until `condition` holds: for what runs on other tasks off the test's clock (a call's task reaching
/// its pause, a child's journal write), where no event says it happened.
func yieldUntil(_ condition: () -> Bool) async {
    while !condition() { await Task.yield() }
}
