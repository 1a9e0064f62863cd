/*
 * grader: deterministic memory for Lua 5.4 states.
 *
 * Appended to Lua's lstate.c by engine/native/build_lupa.py; `luai_makeseed` is
 * replaced by grader_det_install(L).  Two sources of run-to-run variation are
 * removed here:
 *   - the string-hash seed (Lua mixes in addresses and time(NULL)): a constant;
 *   - object addresses, which order pairs() over tables keyed by tables,
 *     functions or userdata: every object of a state is placed in an arena at a
 *     fixed virtual address by a size-class allocator whose decisions depend
 *     only on the state's own sequence of requests.
 * Memory accounting follows lupa's restricted allocator exactly (same struct,
 * same rules), so LuaRuntime(max_memory=...) keeps working.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define GRADER_SEED ((unsigned int)0x5eed5eedu)
#define GRADER_ARENA_BASE ((uintptr_t)0x100000000000ULL)
#define GRADER_ARENA_SPAN ((size_t)1 << 32) /* 4 GiB of address space per state */
#define GRADER_ARENA_SLOTS 16
#define GRADER_SMALL_MAX 1024 /* 16-byte classes up to here */
#define GRADER_SMALL_CLASSES (GRADER_SMALL_MAX / 16)
#define GRADER_CLASSES (GRADER_SMALL_CLASSES + 32) /* then powers of two 2^11 .. 2^42 */
#define GRADER_PAGE ((size_t)4096)

struct grader_memory_status { /* lupa's MemoryStatus */
  size_t used;
  size_t base_usage;
  size_t limit;
};

typedef struct GraderArena {
  char *base, *top, *end;
  void *freelist[GRADER_CLASSES];
  lua_Alloc orig_f;
  void *orig_ud;
  void *main_block;
  int slot;
} GraderArena;

static unsigned int grader_slots_in_use = 0;

static int grader_class(size_t n, size_t *rounded) {
  if (n <= GRADER_SMALL_MAX) {
    size_t r = (n + 15) & ~(size_t)15;
    if (r == 0) r = 16;
    *rounded = r;
    return (int)(r / 16) - 1;
  } else {
    int k = 11;
    while (((size_t)1 << k) < n) k++;
    *rounded = (size_t)1 << k;
    return GRADER_SMALL_CLASSES + (k - 11);
  }
}

static void *grader_arena_alloc(GraderArena *a, size_t n) {
  size_t r;
  int c = grader_class(n, &r);
  void *p;
  if (c >= GRADER_CLASSES) return NULL;
  p = a->freelist[c];
  if (p != NULL) {
    a->freelist[c] = *(void **)p;
    return p;
  }
  if (r >= GRADER_PAGE) { /* page-align large blocks so freed ones can be released */
    uintptr_t t = ((uintptr_t)a->top + GRADER_PAGE - 1) & ~(uintptr_t)(GRADER_PAGE - 1);
    a->top = (char *)t;
  }
  if ((size_t)(a->end - a->top) < r) return NULL;
  p = a->top;
  a->top += r;
  return p;
}

static void grader_arena_free(GraderArena *a, void *p, size_t n) {
  size_t r;
  int c = grader_class(n, &r);
  if (r >= 16 * GRADER_PAGE) /* give the pages back; the address stays reserved */
    madvise((char *)p + GRADER_PAGE, r - GRADER_PAGE, MADV_DONTNEED);
  *(void **)p = a->freelist[c];
  a->freelist[c] = p;
}

static int grader_in_arena(GraderArena *a, void *p) {
  return (char *)p >= a->base && (char *)p < a->end;
}

static void grader_arena_release(GraderArena *a) {
  munmap(a->base, GRADER_ARENA_SPAN);
  grader_slots_in_use &= ~(1u << a->slot);
  free(a);
}

static void *grader_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  GraderArena *a = (GraderArena *)ud;
  struct grader_memory_status *ms = (struct grader_memory_status *)a->orig_ud;
  void *q;
  if (ptr == NULL) osize = 0;
  if (ptr != NULL && !grader_in_arena(a, ptr)) {
    /* the state's main block, allocated before the switch */
    void *main_block = a->main_block;
    q = a->orig_f(a->orig_ud, ptr, osize, nsize);
    if (nsize == 0 && ptr == main_block) grader_arena_release(a);
    return q;
  }
  if (nsize == 0) {
    if (ptr != NULL) {
      grader_arena_free(a, ptr, osize);
      if (ms != NULL) ms->used -= osize;
    }
    return NULL;
  }
  if (nsize == osize) return ptr;
  if (ms != NULL && ms->limit > 0 && nsize > osize && ms->limit <= ms->used + nsize - osize)
    return NULL;
  if (ptr == NULL) {
    q = grader_arena_alloc(a, nsize);
  } else {
    size_t ro, rn;
    if (grader_class(osize, &ro) == grader_class(nsize, &rn)) {
      q = ptr;
    } else {
      q = grader_arena_alloc(a, nsize);
      if (q != NULL) {
        memcpy(q, ptr, osize < nsize ? osize : nsize);
        grader_arena_free(a, ptr, osize);
      }
    }
  }
  if (q != NULL && ms != NULL) ms->used += nsize - osize;
  return q;
}

unsigned int grader_det_install(lua_State *L) {
  void *ud;
  lua_Alloc f = lua_getallocf(L, &ud);
  int slot;
  void *want, *got;
  GraderArena *a;
  for (slot = 0; slot < GRADER_ARENA_SLOTS; slot++)
    if (!(grader_slots_in_use & (1u << slot))) break;
  if (slot == GRADER_ARENA_SLOTS) return GRADER_SEED;
  want = (void *)(GRADER_ARENA_BASE + (uintptr_t)slot * GRADER_ARENA_SPAN);
  got = mmap(want, GRADER_ARENA_SPAN, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
  if (got == MAP_FAILED) return GRADER_SEED;
  if (got != want) {
    munmap(got, GRADER_ARENA_SPAN);
    return GRADER_SEED;
  }
  a = (GraderArena *)calloc(1, sizeof(GraderArena));
  if (a == NULL) {
    munmap(got, GRADER_ARENA_SPAN);
    return GRADER_SEED;
  }
  a->base = a->top = (char *)got;
  a->end = a->base + GRADER_ARENA_SPAN;
  a->orig_f = f;
  a->orig_ud = ud;
  a->main_block = fromstate(L);
  a->slot = slot;
  grader_slots_in_use |= 1u << slot;
  lua_setallocf(L, grader_alloc, a);
  return GRADER_SEED;
}
