#define _GNU_SOURCE
#include "CMappingGuard.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SLOTS 64

// A slot is free when its length is 0. Each slot carries a sequence number, odd while the slot is being
// changed (a seqlock): the handler reads a base and a length only as a pair that belonged together, never one
// mapping's base with another's length.
static atomic_uint slot_sequence[SLOTS];
static _Atomic(uintptr_t) slot_base[SLOTS];
static _Atomic(size_t) slot_length[SLOTS];
static atomic_int slot_faulted[SLOTS];
static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;

static struct sigaction previous;
static pthread_once_t installed = PTHREAD_ONCE_INIT;
static uintptr_t page_size;

// A fault the faulting read raises again when it runs again: an address the mapping cannot back (the file
// ended: BUS_ADRERR), a hardware or I/O error reading it (BUS_OBJERR, BUS_MCEERR_AR), a misaligned access
// (BUS_ADRALN, never repaired here). Any other SIGBUS (sent by a process, or BUS_MCEERR_AO, a warning about
// memory no instruction was reading) would not come back by itself.
static int repeats(const siginfo_t *info) {
    switch (info->si_code) {
    case BUS_ADRERR:
    case BUS_OBJERR:
    case BUS_ADRALN:
#ifdef BUS_MCEERR_AR
    case BUS_MCEERR_AR:
#endif
        return 1;
    default:
        return 0;
    }
}

// A SIGBUS that is not a read of a guarded mapping: the handler that was there before is put back, so it meets
// the signal as if this one had never been installed (the Swift runtime's backtracer, or the default action that
// ends the process): a fault by the read running again, any other signal raised anew (it stays pending until
// this handler returns). Calling that handler from inside this one instead left the backtracer's helper process
// waiting for good. A signal the process ignored stays ignored, and the guard stays.
static void hand_on(const siginfo_t *info) {
    if (!(previous.sa_flags & SA_SIGINFO) && previous.sa_handler == SIG_IGN && !repeats(info)) return;
    sigaction(SIGBUS, &previous, NULL);
    if (!repeats(info)) raise(SIGBUS);
}

// The registered mapping holding `address`, or -1.
static int guarded_slot(uintptr_t address) {
    for (int slot = 0; slot < SLOTS; slot++) {
        unsigned before = atomic_load_explicit(&slot_sequence[slot], memory_order_acquire);
        if (before & 1) continue;
        size_t length = atomic_load_explicit(&slot_length[slot], memory_order_relaxed);
        uintptr_t base = atomic_load_explicit(&slot_base[slot], memory_order_relaxed);
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&slot_sequence[slot], memory_order_relaxed) != before) continue;
        if (length != 0 && address >= base && address - base < length) return slot;
    }
    return -1;
}

static void on_bus_error(int signal, siginfo_t *info, void *context) {
    (void)signal;
    (void)context;
    int slot = -1;
    if (info->si_code == BUS_ADRERR || info->si_code == BUS_OBJERR
#ifdef BUS_MCEERR_AR
        || info->si_code == BUS_MCEERR_AR
#endif
    ) {
        slot = guarded_slot((uintptr_t)info->si_addr);
    }
    if (slot >= 0) {
        void *start = (void *)((uintptr_t)info->si_addr & ~(page_size - 1));
        // mmap is a plain system call on Linux: a page of zeros over the one that cannot be read.
        if (mmap(start, page_size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) {
            atomic_store_explicit(&slot_faulted[slot], 1, memory_order_relaxed);
            return;
        }
    }
    hand_on(info);
}

static void install(void) {
    page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_bus_error;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigemptyset(&action.sa_mask);
    sigaction(SIGBUS, &action, &previous);
}

// Changes a slot under the lock, its sequence odd meanwhile.
static void set_slot(int slot, uintptr_t base, size_t length) {
    atomic_fetch_add_explicit(&slot_sequence[slot], 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&slot_base[slot], base, memory_order_relaxed);
    atomic_store_explicit(&slot_length[slot], length, memory_order_relaxed);
    atomic_fetch_add_explicit(&slot_sequence[slot], 1, memory_order_release);
}

int mapping_guard_register(const void *base, size_t length) {
    if (length == 0) return -1;
    pthread_once(&installed, install);
    pthread_mutex_lock(&slots_lock);
    int found = -1;
    for (int slot = 0; slot < SLOTS; slot++) {
        if (atomic_load_explicit(&slot_length[slot], memory_order_relaxed) == 0) {
            found = slot;
            break;
        }
    }
    if (found >= 0) {
        atomic_store_explicit(&slot_faulted[found], 0, memory_order_relaxed);
        set_slot(found, (uintptr_t)base, length);
    }
    pthread_mutex_unlock(&slots_lock);
    return found;
}

int mapping_guard_faulted(int slot) {
    if (slot < 0 || slot >= SLOTS) return 0;
    return atomic_load_explicit(&slot_faulted[slot], memory_order_relaxed);
}

void mapping_guard_unregister(int slot) {
    if (slot < 0 || slot >= SLOTS) return;
    pthread_mutex_lock(&slots_lock);
    set_slot(slot, 0, 0);
    pthread_mutex_unlock(&slots_lock);
}
