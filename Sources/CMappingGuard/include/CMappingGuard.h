// A read-only file mapping that survives its file shrinking, or a disk error, while it is read.
//
// Reading a page of a mapping past the end of its file (the file was truncated after it was mapped) or a page
// the disk cannot deliver raises SIGBUS, which ends the process. A mapping registered here is instead patched:
// the faulting page is replaced by a page of zeros, the read goes on, and the mapping is marked as faulted, so
// the reader refuses what it read with one line instead of the process dying. Faults anywhere else go to the
// handler that was there before, or end the process as they always did.
#ifndef CMAPPING_GUARD_H
#define CMAPPING_GUARD_H

#include <stddef.h>

/// Registers [base, base + length) (page-aligned, as mmap returns it); returns a slot, or -1 when all 64 slots
/// are taken (the mapping is then read unguarded, as any mapping was before). Installs the SIGBUS handler on
/// first use. Only a fault of a read that runs again is repaired (the file ended, or the disk failed); a
/// misaligned access and any SIGBUS another process sends go to the handler that was there before.
int mapping_guard_register(const void *base, size_t length);

/// 1 when a read of the slot's mapping faulted since it was registered, else 0.
int mapping_guard_faulted(int slot);

/// Forgets the slot; call before unmapping.
void mapping_guard_unregister(int slot);

#endif
