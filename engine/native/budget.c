/*
 * grader: the instruction budget, counted in the VM.
 *
 * Appended to Lua's lvm.c by engine/native/build_lupa.py, which also adds the
 * fields it uses (Proto.grader_metered, global_State.grader_left and
 * .grader_tripped) and the charge points in luaV_execute.  A count hook that
 * samples every N instructions makes every instruction pass through the hook
 * check; instead, the VM charges game code only where control can come back:
 *   - a backward jump (OP_JMP, the jump of a conditional test, OP_FORLOOP,
 *     OP_TFORLOOP) charges the length of the code it jumps back over, so a loop
 *     iteration costs about the instructions of its body;
 *   - the start of a Lua function (a call, a tail call, a call from C, a
 *     resume) charges GRADER_CALL_UNITS (4): about what a call costs the VM
 *     next to a simple instruction, so that a runaway recursion ends about as
 *     soon as a runaway loop of the same speed.
 * Every cycle of control flow passes one of these points, so no game loop or
 * recursion escapes the count.  Only functions whose prototype is metered are
 * charged: every prototype is metered when it is created, and the engine
 * clears the mark on its own code with debug.unmetered(f).  The counter is
 * global to the state, so coroutines share it.
 *
 * When the counter goes below zero, grader_budget_out() calls the handler given
 * to debug.setbudget (the engine's: it records the abort and returns the value
 * to raise) and raises what it returns.  From then on every thread carries a
 * count hook of 1 that raises again at the first metered instruction to run,
 * so no pcall, error handler or coroutine can swallow the exhaustion; the
 * engine's own (unmetered) code runs on so that it can unwind.
 * debug.setbudget(nil) disarms the budget (the hooks remove themselves).
 */
#include "lauxlib.h"

#define GRADER_UNLIMITED MAX_LMEM
#define GRADER_TRIPPED 1
#define GRADER_IN_HANDLER 2

static const char grader_budget_key = 'b'; /* registry key of the handler */

static void grader_trap_hook (lua_State *L, lua_Debug *ar);

static void grader_trap_thread (lua_State *L1) {
  lua_sethook(L1, grader_trap_hook, LUA_MASKCOUNT, 1);
}

/* Every thread of the state: the main thread and those on the collector's lists. */
static void grader_trap_all (lua_State *L) {
  global_State *g = G(L);
  GCObject *o;
  grader_trap_thread(g->mainthread);
  for (o = g->allgc; o != NULL; o = o->next)
    if (o->tt == LUA_VTHREAD) grader_trap_thread(gco2th(o));
  for (o = g->finobj; o != NULL; o = o->next)
    if (o->tt == LUA_VTHREAD) grader_trap_thread(gco2th(o));
}

l_noret grader_budget_out (lua_State *L) {
  global_State *g = G(L);
  g->grader_left = -1; /* stays exhausted: every later charge comes back here */
  if (!(g->grader_tripped & GRADER_TRIPPED)) {
    g->grader_tripped |= GRADER_TRIPPED;
    grader_trap_all(L);
  }
  lua_rawgetp(L, LUA_REGISTRYINDEX, &grader_budget_key);
  if (lua_isfunction(L, -1) && !(g->grader_tripped & GRADER_IN_HANDLER)) {
    g->grader_tripped |= GRADER_IN_HANDLER; /* a metered handler must not call itself again */
    /* the engine's handler records the abort and returns what to raise; if it fails, its error is raised */
    lua_pcall(L, 0, 1, 0);
    g->grader_tripped &= ~GRADER_IN_HANDLER;
  }
  else {
    lua_pop(L, 1);
    lua_pushliteral(L, "instruction budget exhausted");
  }
  luaG_errormsg(L); /* as error() does: through the message handler, then thrown */
}

static void grader_trap_hook (lua_State *L, lua_Debug *ar) {
  CallInfo *ci = L->ci;
  UNUSED(ar);
  if (!G(L)->grader_tripped) { /* disarmed since: this thread needs no hook */
    lua_sethook(L, NULL, 0, 0);
    return;
  }
  if (isLua(ci) && ci_func(ci)->p->grader_metered)
    grader_budget_out(L);
}

/* debug.setbudget([n [, handler]]): n units for metered code from now on (nil: no limit). */
int grader_db_setbudget (lua_State *L) {
  global_State *g = G(L);
  if (lua_isnoneornil(L, 1))
    g->grader_left = GRADER_UNLIMITED;
  else {
    lua_Integer n = luaL_checkinteger(L, 1);
    luaL_argcheck(L, n >= 0, 1, "the budget cannot be negative");
    g->grader_left = (l_mem)n;
  }
  g->grader_tripped = 0;
  lua_settop(L, 2);
  if (!lua_isnil(L, 2)) luaL_checktype(L, 2, LUA_TFUNCTION);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &grader_budget_key);
  return 0;
}

/* debug.getbudget(): the units left (negative once exhausted), nil when there is no limit. */
int grader_db_getbudget (lua_State *L) {
  global_State *g = G(L);
  if (g->grader_left > GRADER_UNLIMITED / 2)
    lua_pushnil(L);
  else
    lua_pushinteger(L, (lua_Integer)g->grader_left);
  return 1;
}

static void grader_unmeter_proto (Proto *p) {
  int i;
  p->grader_metered = 0;
  for (i = 0; i < p->sizep; i++)
    if (p->p[i] != NULL) grader_unmeter_proto(p->p[i]);
}

/* debug.unmetered(f): f and every function defined inside it are engine code, never charged; returns f. */
int grader_db_unmetered (lua_State *L) {
  const TValue *o;
  luaL_checktype(L, 1, LUA_TFUNCTION);
  lua_settop(L, 1);
  o = s2v(L->top.p - 1);
  if (ttisLclosure(o))
    grader_unmeter_proto(clLvalue(o)->p);
  return 1;
}

/* debug.metered(f): whether calls of f are charged (false for C functions). */
int grader_db_metered (lua_State *L) {
  const TValue *o;
  luaL_checktype(L, 1, LUA_TFUNCTION);
  lua_settop(L, 1);
  o = s2v(L->top.p - 1);
  lua_pushboolean(L, ttisLclosure(o) && clLvalue(o)->p->grader_metered);
  return 1;
}
