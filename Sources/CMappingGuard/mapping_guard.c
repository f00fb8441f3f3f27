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

// A slot is free when its length is 0. The handler reads slots without a lock: base is written before
// length (release) when a slot is taken, and length is cleared first (release) when it is given back.
static _Atomic(uintptr_t) slot_base[SLOTS];
static _Atomic(size_t) slot_length[SLOTS];
static atomic_int slot_faulted[SLOTS];
static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;

static struct sigaction previous;
static pthread_once_t installed = PTHREAD_ONCE_INIT;
static uintptr_t page_size;

// A fault outside every guarded mapping: the handler that was there before is put back and the faulting read runs
// again, so that handler meets the signal as if this one had never been installed (the Swift runtime's backtracer,
// say, or the default action that ends the process). Calling it from inside this handler instead left the
// backtracer's helper process waiting for good.
// A SIGBUS another process or thread sent (no fault to run again) is raised anew for it; it stays pending
// until this handler returns.
static void hand_on(const siginfo_t *info) {
    sigaction(SIGBUS, &previous, NULL);
    if (info->si_code <= 0) raise(SIGBUS);
}

static void on_bus_error(int signal, siginfo_t *info, void *context) {
    (void)signal;
    (void)context;
    uintptr_t address = (uintptr_t)info->si_addr;
    for (int slot = 0; info->si_code > 0 && slot < SLOTS; slot++) {
        size_t length = atomic_load_explicit(&slot_length[slot], memory_order_acquire);
        if (length == 0) continue;
        uintptr_t base = atomic_load_explicit(&slot_base[slot], memory_order_relaxed);
        if (address < base || address >= base + length) continue;
        void *start = (void *)(address & ~(page_size - 1));
        // mmap is a plain system call on Linux; a page of zeros over the one that cannot be read.
        if (mmap(start, page_size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) break;
        atomic_store_explicit(&slot_faulted[slot], 1, memory_order_relaxed);
        return;
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
        atomic_store_explicit(&slot_base[found], (uintptr_t)base, memory_order_relaxed);
        atomic_store_explicit(&slot_length[found], length, memory_order_release);
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
    atomic_store_explicit(&slot_length[slot], 0, memory_order_release);
    pthread_mutex_unlock(&slots_lock);
}
