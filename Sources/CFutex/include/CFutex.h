// The two futex calls `Locked` makes on Linux when its lock is contended. In C because the C library's `syscall` takes variable arguments, which Swift does not import.
#ifndef LOFT_CFUTEX_H
#define LOFT_CFUTEX_H
// Empty elsewhere: only Linux builds depend on this module (Package.swift).
#ifdef __linux__

#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

/// Sleeps while the 32-bit word at `word` holds `expected` (returns at once when it does not, and may return
/// spuriously: the caller checks the word again).
static inline void loft_futex_wait(void *word, uint32_t expected) {
    syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, expected, (void *)0, (void *)0, 0);
}

/// Wakes one thread sleeping on `word`.
static inline void loft_futex_wake_one(void *word) {
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, (void *)0, (void *)0, 0);
}

#endif
#endif
